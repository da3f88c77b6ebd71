#!/usr/bin/env node
/**
 * Generates src/api/protobuf/data/messages.json: the protobuf wire facts of
 * every message of k8s.io/api (all groups and versions) and of the
 * k8s.io/apimachinery packages objects are built from, in our own compact form.
 *
 * Inputs (read, never copied): the public generated.proto files for field
 * numbers and wire types, and the Go types of the same packages for what the
 * .proto files do not say: the JSON name of each field, whether it is a
 * pointer (proto2 presence), omitempty/omitzero, and embedded structs that
 * JSON inlines (core/v1 Volume.volumeSource, Probe.handler, …).
 *
 * Usage:
 *   node scripts/gen-protobuf.mjs [--api DIR] [--apimachinery DIR]
 * DIR is a git repository (a bare mirror is fine) of kubernetes/api and
 * kubernetes/apimachinery; the defaults are the fetch tool's mirrors.
 * kubernetes/kubernetes works too: pass DIR/staging/src/k8s.io/api with --worktree.
 *
 * Output format (one object):
 *   { source: {api, apimachinery},            commits read
 *     packages: { "<proto package>": {group, version} },
 *     lists: ["<message>", …],                 messages that JSON writes as a bare array of their `items`
 *     messages: { "<message full name>": [[jsonName, number, type, flags], …] } }
 * Fields are in Go struct order (the order Go's encoding/json writes them).
 * type: a scalar (string, int32, int64, uint32, uint64, bool, bytes, double, float),
 *       a message full name, or "map<K,V>" with K a scalar and V a scalar or message.
 * flags: r repeated, p pointer (presence), o omitempty, z omitzero, i inlined in JSON.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
function arg(name, fallback) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
}
const worktree = args.includes('--worktree');
const apiDir = arg('--api', '/work/.mirror/kubernetes+api/repo');
const machineryDir = arg('--apimachinery', '/work/.mirror/kubernetes+apimachinery/repo');
const outFile = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'api', 'protobuf', 'data', 'messages.json');

/** Files of a repository, from a work tree or from git's HEAD. */
function repo(dir) {
  if (worktree) {
    const walk = (d) => readdirSync(join(dir, d), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
    return { commit: 'worktree', files: walk(''), read: (p) => readFileSync(join(dir, p), 'utf8') };
  }
  const git = (...a) => execFileSync('git', ['-C', dir, ...a], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return {
    commit: git('rev-parse', 'HEAD').trim(),
    files: git('ls-tree', '-r', '--name-only', 'HEAD').split('\n').filter(Boolean),
    read: (p) => git('show', `HEAD:${p}`),
  };
}

const MACHINERY_PACKAGES = ['pkg/apis/meta/v1', 'pkg/runtime', 'pkg/api/resource', 'pkg/util/intstr'];

/** Parse a generated.proto: its package and messages (fields with number, type, label). */
function parseProto(text) {
  const pkg = /^package ([\w.]+);/m.exec(text)[1];
  const messages = new Map();
  const lists = new Set();
  const re = /((?:^\/\/.*\n)*)^message (\w+) \{\n([\s\S]*?)^\}/gm;
  for (let m; (m = re.exec(text)); ) {
    const [, comment, name, body] = m;
    const fields = new Map();
    for (const line of body.split('\n')) {
      const f = /^\s*(optional|repeated)?\s*(map<\s*([\w.]+)\s*,\s*([\w.]+)\s*>|[\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;/.exec(line);
      if (f === null) continue;
      const [, label, type, mapKey, mapValue, protoName, number] = f;
      const resolve = (t) => (t.startsWith('.') ? t.slice(1) : SCALARS.has(t) ? t : `${pkg}.${t}`);
      fields.set(Number(number), {
        protoName,
        repeated: label === 'repeated',
        type: mapKey !== undefined ? `map<${resolve(mapKey)},${resolve(mapValue)}>` : resolve(type),
      });
    }
    messages.set(name, fields);
    if (comment.includes('+protobuf.nullable=true')) lists.add(`${pkg}.${name}`);
  }
  return { pkg, messages, lists };
}
const SCALARS = new Set(['string', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'bool', 'bytes', 'double', 'float', 'fixed32', 'fixed64']);

/** Proto package of a Go import path: k8s.io/api/core/v1 → k8s.io.api.core.v1. */
const protoPackageOf = (importPath) => importPath.replaceAll('/', '.');

/**
 * Parse the Go structs of a package: per struct, fields with their json and
 * protobuf tags; and defined types over another package's struct
 * (`type MatchCondition v1.MatchCondition`), which share its JSON.
 */
function parseGoStructs(sources) {
  const structs = new Map();
  structs.aliases = new Map();
  for (const text of sources) {
    const imports = new Map();
    for (const m of text.matchAll(/^\s*(\w+)?\s*"(k8s\.io\/[^"]+)"$/gm)) imports.set(m[1] ?? m[2].split('/').pop(), m[2]);
    for (const m of text.matchAll(/^type (\w+) (\w+)\.(\w+)$/gm)) {
      const importPath = imports.get(m[2]);
      if (importPath !== undefined) structs.aliases.set(m[1], `${protoPackageOf(importPath)}.${m[3]}`);
    }
    const re = /^type (\w+) struct \{\n([\s\S]*?)^\}/gm;
    for (let m; (m = re.exec(text)); ) {
      const fields = [];
      for (const raw of m[2].split('\n')) {
        const line = raw.replace(/^\s+/, '');
        if (line.startsWith('//') || line === '') continue;
        const tagMatch = /`([^`]*)`/.exec(line);
        const tags = tagMatch === null ? '' : tagMatch[1];
        const decl = (tagMatch === null ? line : line.slice(0, tagMatch.index)).trim().split(/\s+/);
        const embedded = decl.length === 1;
        const goType = embedded ? decl[0] : decl[1];
        const json = /json:"([^"]*)"/.exec(tags);
        const proto = /protobuf:"([^"]*)"/.exec(tags);
        if (proto === null) continue;
        const number = Number(proto[1].split(',')[1]);
        const [jsonName = '', ...opts] = json === null ? [] : json[1].split(',');
        fields.push({ goType, embedded, jsonName, opts, number, hasJsonTag: json !== null });
      }
      structs.set(m[1], fields);
    }
  }
  return structs;
}

function collect(repository, dirs, all) {
  for (const dir of dirs) {
    const protoPath = `${dir}/generated.proto`;
    if (!repository.files.includes(protoPath)) continue;
    const proto = parseProto(repository.read(protoPath));
    const goFiles = repository.files.filter(
      (f) => dirname(f) === dir && f.endsWith('.go') && !f.endsWith('_test.go') && !f.endsWith('generated.pb.go') && !/zz_generated|swagger_doc/.test(f),
    );
    const structs = parseGoStructs(goFiles.map((f) => repository.read(f)));
    let group;
    const register = goFiles.find((f) => f.endsWith('/register.go'));
    if (register !== undefined) {
      const g = /GroupName\s*=\s*"([^"]*)"/.exec(repository.read(register));
      if (g !== null) group = g[1];
    }
    all.packages[proto.pkg] = { group: group ?? null, version: dir.split('/').pop() };
    for (const l of proto.lists) all.lists.push(l);
    for (const [name, protoFields] of proto.messages) {
      const full = `${proto.pkg}.${name}`;
      const goFields = structs.get(name);
      const alias = structs.aliases.get(name);
      if (goFields === undefined && alias !== undefined) {
        all.aliases.set(full, alias);
      } else if (goFields === undefined) all.noStruct.push(full);
      const out = [];
      const seen = new Set();
      if (goFields !== undefined) {
        for (const g of goFields) {
          const p = protoFields.get(g.number);
          if (p === undefined) continue;
          seen.add(g.number);
          let flags = p.repeated ? 'r' : '';
          if (g.goType.startsWith('*')) flags += 'p';
          if (g.opts.includes('omitempty')) flags += 'o';
          if (g.opts.includes('omitzero')) flags += 'z';
          // An embedded struct with no JSON name is written inline by encoding/json.
          let jsonName = g.jsonName;
          if (g.embedded && (jsonName === '' || g.opts.includes('inline'))) {
            flags += 'i';
            jsonName = p.protoName;
          } else if (!g.hasJsonTag || jsonName === '' || jsonName === '-') {
            // Not in JSON (RawExtension.raw, Duration's nanoseconds): the codec treats these types itself.
            jsonName = p.protoName;
          }
          out.push([jsonName, g.number, p.type, flags]);
        }
      }
      // Messages with no Go struct of that name (Timestamp, the list wrappers, …): proto names, presence semantics.
      for (const [number, p] of protoFields) {
        if (seen.has(number)) continue;
        if (goFields !== undefined) all.unmatched.push(`${full}.${p.protoName}`);
        out.push([p.protoName, number, p.type, (p.repeated ? 'r' : '') + 'o']);
      }
      all.messages[full] = out;
    }
  }
}

const api = repo(apiDir);
const machinery = repo(machineryDir);
const all = { packages: {}, lists: [], messages: {}, unmatched: [], noStruct: [], aliases: new Map() };
const apiDirs = [...new Set(api.files.filter((f) => f.endsWith('/generated.proto')).map(dirname))].sort();
collect(api, apiDirs, all);
collect(machinery, MACHINERY_PACKAGES, all);

// A defined type over another package's struct takes that struct's JSON facts, field by field.
for (const [full, target] of all.aliases) {
  const facts = new Map((all.messages[target] ?? []).map((f) => [f[1], f]));
  all.messages[full] = all.messages[full].map((f) => {
    const t = facts.get(f[1]);
    return t === undefined ? f : [t[0], f[1], f[2], t[3]];
  });
}

const sortedMessages = Object.fromEntries(Object.entries(all.messages).sort(([a], [b]) => a.localeCompare(b)));
const output = {
  source: { api: api.commit, apimachinery: machinery.commit },
  packages: all.packages,
  lists: all.lists.sort(),
  messages: sortedMessages,
};
mkdirSync(dirname(outFile), { recursive: true });
// One message per line: small diffs when upstream adds fields.
const lines = Object.entries(output.messages).map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
const text = `{\n  "source": ${JSON.stringify(output.source)},\n  "packages": ${JSON.stringify(output.packages)},\n  "lists": ${JSON.stringify(output.lists)},\n  "messages": {\n${lines.join(',\n')}\n  }\n}\n`;
writeFileSync(outFile, text);
console.log(`wrote ${outFile}: ${lines.length} messages from ${Object.keys(output.packages).length} packages`);
if (all.noStruct.length > 0) console.log(`messages with no Go struct of their name (fields kept under their proto names): ${all.noStruct.join(', ')}`);
if (all.unmatched.length > 0) console.log(`proto fields with no Go field (kept under their proto names): ${all.unmatched.join(', ')}`);
if (!existsSync(outFile)) process.exit(1);
