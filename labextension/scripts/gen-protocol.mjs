/**
 * Generate `src/protocol.ts`, the panel's wire types, from the protocol's JSON Schema
 * (`prime_jupyter/protocol/schema.json`, itself exported from the pydantic models).
 *
 *   node scripts/gen-protocol.mjs          write src/protocol.ts
 *   node scripts/gen-protocol.mjs --check  exit 1 when src/protocol.ts is stale
 *
 * The check runs in `npm test`, so a wire change that is not regenerated fails the test command.
 */
import { compile } from 'json-schema-to-typescript';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const schemaPath = path.resolve(here, '../../prime_jupyter/protocol/schema.json');
const targetPath = path.resolve(here, '../src/protocol.ts');

const BANNER = `/* eslint-disable */
/**
 * GENERATED FILE, do not edit: the wire types of prime_jupyter's protocol.
 * Source: prime_jupyter/protocol/schema.json. Regenerate: npm run gen:protocol (in labextension/).
 */`;

async function generate() {
  const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
  return compile(schema, 'PrimeWire', {
    bannerComment: BANNER,
    unreachableDefinitions: true,
    additionalProperties: false,
    strictIndexSignatures: true,
    format: true,
    style: { singleQuote: true, printWidth: 100 }
  });
}

const text = await generate();
if (process.argv.includes('--check')) {
  const current = fs.existsSync(targetPath) ? fs.readFileSync(targetPath, 'utf8') : '';
  if (current !== text) {
    console.error(
      'src/protocol.ts is stale: the protocol schema changed. Run `npm run gen:protocol` in labextension/.'
    );
    process.exit(1);
  }
  console.log('src/protocol.ts matches prime_jupyter/protocol/schema.json');
} else {
  fs.writeFileSync(targetPath, text);
  console.log(`wrote ${path.relative(process.cwd(), targetPath)}`);
}
