#!/usr/bin/env node
// The k8ts command. The code is TypeScript compiled to dist/ (npm run build).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/src/cmd/k8ts.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('k8ts is not built yet: run `npm install && npm run build` in the checkout first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv);
