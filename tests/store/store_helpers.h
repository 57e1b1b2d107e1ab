#ifndef STORE_HELPERS_H
#define STORE_HELPERS_H
#endif
