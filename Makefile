# Two commands do everything on a fresh Debian machine:
#   make play   installs what is missing, builds, plays a game
#   make test   installs what is missing, builds, runs every test
#               (a normal build, an ASan+UBSan build, and a short run
#               of each fuzz target)
#   make fuzz   runs each fuzz target for FUZZ_SECONDS (README "Fuzzing")
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
# Seconds each fuzz target runs: in make fuzz, and in make test.
FUZZ_SECONDS ?= 600
FUZZ_TEST_SECONDS ?= 10
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SEED ?= $(shell date +%s)

.PHONY: all deps build play play-bots test test-asan test-fuzz fuzz fuzz-build \
	bench figures format clean verify-model verify-model-d4

all: build

deps:
	@bash tools/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# You (red) against three bots, each bot a separate peer with its own
# repository syncing with yours through path remotes. The game stays in
# $(GAMES)/$(SEED) (replay it with: build/catan replay $(GAMES)/$(SEED)/red).
GAMES ?= $(BUILD)/games
BOARD ?= balanced
play: build
	./$(BUILD)/catan play --new $(GAMES)/$(SEED) --board $(BOARD) --seed $(SEED)

# The terminal game between four bots that make play was before the window.
play-bots: build
	./$(BUILD)/catan bots --players 4 --board random --seed $(SEED)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-fuzz

test-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCATAN_SANITIZE=ON -DCATAN_RANDOM_GAMES=300 -DCATAN_VERIFY_GAMES=10 >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)

# The libFuzzer harnesses (tests/fuzz), built with clang in a directory
# of their own. Each run starts from the checked-in seed corpus and the
# corpus earlier runs grew in $(FUZZ_BUILD)/tests/fuzz/corpus/ (only that
# one is written); a crash input lands in $(FUZZ_BUILD)/tests/fuzz/artifacts/.
fuzz-build: deps
	@cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCATAN_TESTS=OFF -DCATAN_FUZZ=ON -DCATAN_FUZZ_TEST_SECONDS=$(FUZZ_RUN_SECONDS) >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_all

# Every kept crash input, then each target for FUZZ_TEST_SECONDS, JOBS at
# a time, one a core (10 targets: about a minute on 2 cores).
test-fuzz:
	@$(MAKE) --no-print-directory fuzz-build FUZZ_RUN_SECONDS=$(FUZZ_TEST_SECONDS)
	cd $(FUZZ_BUILD) && ctest --output-on-failure -j $(JOBS) -L fuzz; rc=$$?; \
		cat tests/fuzz/corpus/*.summary; exit $$rc

fuzz:
	@$(MAKE) --no-print-directory fuzz-build FUZZ_RUN_SECONDS=$(FUZZ_SECONDS)
	cd $(FUZZ_BUILD) && ctest --output-on-failure -j $(JOBS) -L '^fuzz$$'; rc=$$?; \
		cat tests/fuzz/corpus/*.summary; exit $$rc

bench: build
	./$(BUILD)/catan-bench

# The thesis's figures 5.2-5.5 for 2, 3 and 4 players (tools/figures.sh):
# FIGURE_GAMES plain games per player count, FIGURE_PEER_GAMES games of
# simulate --peers for figure 5.5's sync part. Builds only the catan
# command. Written to $(FIGURES) (README.md there says what is what).
FIGURES ?= $(BUILD)/figures
FIGURE_GAMES ?= 100
FIGURE_PEER_GAMES ?= 10
figures: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target catan
	JOBS=$(JOBS) bash tools/figures.sh $(BUILD)/catan $(FIGURES) $(FIGURE_GAMES) $(FIGURE_PEER_GAMES)

# The big configurations of the replication model (spec/replication.pml):
# more players, faults and a dishonest seat, and the mutants that take
# longer than CI allows (tests/model/test_spin.sh big). Long: runs niced.
# PAN_COMPRESS=-DHC4 (hash compaction, 96 bits of hash a state: not exact,
# about ten times faster than MA) and PAN_MEM_MB, PAN_HASH_BITS may be set;
# PAN_JOBS searches run at once (each with PAN_MEM_MB).
PAN_COMPRESS ?= -DMA=400
PAN_MEM_MB ?= 3000
PAN_JOBS ?= 1
verify-model: deps
	PAN_COMPRESS="$(PAN_COMPRESS)" PAN_MEM_MB=$(PAN_MEM_MB) PAN_JOBS=$(PAN_JOBS) nice -n 10 bash tests/model/test_spin.sh spec/replication.pml big

# The goal configuration d4 (4 players, one dishonest seat, one fault),
# with the abstraction FORGETFUL, part by part (tools/model_pieces.sh;
# spec/model.md "The forgetful peers", "The goal configuration in
# parts"): the parts the ledger spec/model-pieces.tsv does not hold for
# the model as it is, PAN_JOBS at once, each with PIECES_MEM_MB. Stop it
# at any time: a part that finished stays in the ledger. Then the
# ledger's status.
PIECES_MEM_MB ?= 10500
verify-model-d4: deps
	PAN_MEM_MB=$(PIECES_MEM_MB) PAN_JOBS=$(PAN_JOBS) nice -n 10 bash tools/model_pieces.sh run
	bash tools/model_pieces.sh status

format:
	clang-format -i include/catan/*.h src/*/*.c src/*/*.h tests/*/*.c tests/*/*.h tools/*.c 2>/dev/null || true

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
