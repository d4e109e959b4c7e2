#!/usr/bin/env node
// netintel serve | import | refresh | lookup | keys | whois-cache | version
import { runMain } from './cli/commands.js';

process.exitCode = await runMain(process.argv.slice(2));
