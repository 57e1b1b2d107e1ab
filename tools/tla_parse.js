// tla_parse.js GRAMMAR.wasm FILE... - parses each TLA+ file with the
// tree-sitter TLA+ grammar (@tlaplus/tree-sitter-tlaplus, run through
// web-tree-sitter) and fails on the first syntax error, naming its line.
'use strict';
const fs = require('fs');
const Parser = require('web-tree-sitter');

function firstError(node) {
	if (node.type === 'ERROR' || node.isMissing) return node;
	for (let i = 0; i < node.childCount; i++) {
		const e = node.child(i).hasError ? firstError(node.child(i)) : null;
		if (e) return e;
	}
	return null;
}

(async () => {
	const [wasm, ...files] = process.argv.slice(2);
	await Parser.init();
	const lang = await Parser.Language.load(wasm);
	const parser = new Parser();
	parser.setLanguage(lang);
	let bad = 0;
	for (const f of files) {
		const tree = parser.parse(fs.readFileSync(f, 'utf8'));
		if (tree.rootNode.hasError) {
			const e = firstError(tree.rootNode) || tree.rootNode;
			const what = e.isMissing ? `missing ${e.type}` : 'syntax error';
			console.log(`${f}:${e.startPosition.row + 1}:${e.startPosition.column + 1}: ${what}`);
			bad = 1;
		} else {
			console.log(`${f}: parses (${tree.rootNode.namedChildCount} module)`);
		}
	}
	process.exit(bad);
})().catch((e) => { console.error(e.message); process.exit(2); });
