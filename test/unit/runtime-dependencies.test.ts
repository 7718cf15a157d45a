// A host installs with `npm ci --omit=dev`: every package the bridge loads at
// run time must be under "dependencies", or `npm start` dies with
// ERR_MODULE_NOT_FOUND on the merchant's machine while every test here passes.
// (.ci/run also installs and starts the bridge that way.)
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js)$/.test(entry.name) && !entry.parentPath.includes('dashboard'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Package specifiers a file loads when it runs: type-only imports are erased and do not count. */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier))
      found.push(node.moduleSpecifier.text);
    if (
      ts.isExportDeclaration(node) &&
      !node.isTypeOnly &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    )
      found.push(node.moduleSpecifier.text);
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      found.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const packageName = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!;

describe('a production install', () => {
  it('has every package that src/, adapters/ and bin/ load at run time under "dependencies"', () => {
    const missing = new Set<string>();
    for (const file of ['src', 'adapters', 'bin'].flatMap(sourceFiles)) {
      for (const specifier of runtimeImports(file)) {
        if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
        const name = packageName(specifier);
        if (!manifest.dependencies[name]) missing.add(`${name} (${file.slice(root.length + 1)})`);
      }
    }
    expect([...missing]).toEqual([]);
  });

  it('has the pretty-printing log transport, which pino loads by name, under "dependencies"', () => {
    expect(manifest.dependencies['pino-pretty']).toBeDefined();
  });
});
