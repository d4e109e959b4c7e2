// Replaces the `uWebSockets.js` package inside the single executable (esbuild alias in
// scripts/build-binary.mjs). The package's own loader require()s binaries/uws_<platform>_<abi>.node from
// node_modules, which the executable does not have; the addon travels as a SEA asset instead and is
// extracted to a private cache directory, then loaded with process.dlopen.
'use strict';
const { ASSETS, loadEmbeddedAddon } = require('./runtime.ts');

module.exports = loadEmbeddedAddon(ASSETS.uws);
