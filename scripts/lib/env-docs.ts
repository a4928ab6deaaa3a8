import ts from "typescript";

/**
 * The environment variables' documentation, generated from config/env.ts so that they are written
 * once: `.env.example` and the configuration table (docs/configuration.md). Names and defaults come from the zod
 * schemas themselves, descriptions from the doc comment above each property (the file's own
 * layout; `.describe()` would write each text a second time in code), and the services that read a
 * variable from the schemas that hold it.
 */

/** The schemas a process parses, in the order of `.env.example`'s sections, and who parses them. */
export const READERS: readonly (readonly [schema: string, label: string])[] = [
  ["chainEnv", "deploy"],
  ["indexerEnv", "indexer"],
  ["ecosystemApiEnv", "ecosystem API"],
  ["writesEnv", "API writes"],
  ["agentsEnv", "agents"],
  ["startEnv", "npm start"],
  ["webEnv", "web"],
  ["exchangeEnv", "exchange"],
  ["gatewayEnv", "gateway"],
  ["botEnv", "bot"],
  ["adminEnv", "admin"],
  ["mcpEnv", "mcp"],
];

/** Schemas no process parses by themselves: they reach the processes through the ones extending them. */
export const BASES: readonly string[] = ["apiEnv", "streamEnv", "exchangeClientEnv"];

/** What the generator needs of a zod schema: its shape and, per property, its definition. */
interface SchemaDef {
  type: string;
  innerType?: ZodLike;
  in?: ZodLike;
  defaultValue?: unknown;
}
interface ZodLike {
  _zod: { def: SchemaDef };
}
interface ObjectLike {
  shape: Record<string, ZodLike>;
}

export interface EnvVar {
  name: string;
  /** Labels of the processes that read it, in READERS order. */
  readers: string[];
  /** Per reader: the default as text, `null` when unset is allowed, `undefined` when required. */
  defaults: Map<string, string | null | undefined>;
  /** Distinct descriptions, each with the readers whose schema carries it. */
  descriptions: { text: string; readers: string[] }[];
}

/** The default of one property, as an environment value: text, `null` (optional), `undefined` (required). */
export function defaultText(schema: ZodLike): string | null | undefined {
  const def = schema._zod.def;
  if (def.type === "default") {
    const value = def.defaultValue;
    return typeof value === "string" ? value : String(value);
  }
  if (def.type === "optional") return null;
  if (def.type === "pipe" && def.in) return defaultText(def.in);
  return undefined;
}

/**
 * Each exported schema's doc comments by property, from the source text: its own object literal's,
 * then those of the schemas it extends (`base.extend({...})`) or spreads (`...base.shape`).
 */
export function docComments(source: string): Map<string, Map<string, string>> {
  const file = ts.createSourceFile("env.ts", source, ts.ScriptTarget.Latest, true);
  const own = new Map<string, Map<string, string>>();
  const bases = new Map<string, string[]>();
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || !declaration.initializer) continue;
      const comments = new Map<string, string>();
      const from: string[] = [];
      const visit = (node: ts.Node) => {
        if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && ts.isObjectLiteralExpression(node.parent)) {
          const text = leadingDoc(source, node);
          if (text) comments.set(node.name.text, text);
        }
        if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
          const spread = ts.isSpreadAssignment(node.parent) && node.name.text === "shape";
          if (node.name.text === "extend" || spread) from.push(node.expression.text);
        }
        ts.forEachChild(node, visit);
      };
      visit(declaration.initializer);
      own.set(declaration.name.text, comments);
      bases.set(declaration.name.text, from);
    }
  }
  const resolved = new Map<string, Map<string, string>>();
  const resolve = (name: string): Map<string, string> => {
    const done = resolved.get(name);
    if (done) return done;
    const merged = new Map<string, string>();
    for (const base of bases.get(name) ?? []) for (const [key, text] of resolve(base)) merged.set(key, text);
    for (const [key, text] of own.get(name) ?? []) merged.set(key, text);
    resolved.set(name, merged);
    return merged;
  };
  return new Map([...own.keys()].map((name) => [name, resolve(name)]));
}

/** The `/** ... *\/` comment right above a node, on one line. */
function leadingDoc(source: string, node: ts.Node): string | undefined {
  const ranges = ts.getLeadingCommentRanges(source, node.getFullStart()) ?? [];
  const last = ranges.at(-1);
  if (!last) return undefined;
  const raw = source.slice(last.pos, last.end);
  if (!raw.startsWith("/**")) return undefined;
  return raw
    .replace(/^\/\*\*|\*\/$/g, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, "").trim())
    .filter(Boolean)
    .join(" ");
}

/**
 * Every variable of the parsed schemas, in the order of READERS and of each schema's properties.
 * Throws when an exported schema is neither a reader nor a base (it would go undocumented) or when
 * a variable has no doc comment in any schema that holds it.
 */
export function collectEnv(
  module: Record<string, unknown>,
  source: string,
  { readers = READERS, bases = BASES }: { readers?: typeof READERS; bases?: readonly string[] } = {},
): EnvVar[] {
  const known = new Set([...readers.map(([schema]) => schema), ...bases]);
  const schemas = Object.keys(module).filter((name) => isObjectSchema(module[name]));
  const unknown = schemas.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `config/env.ts exports ${unknown.join(", ")}: add each to READERS or BASES in scripts/lib/env-docs.ts`,
    );
  }
  const comments = docComments(source);
  const vars = new Map<string, EnvVar>();
  for (const [schemaName, label] of readers) {
    const schema = module[schemaName];
    if (!isObjectSchema(schema)) throw new Error(`config/env.ts does not export the schema ${schemaName}`);
    for (const [name, property] of Object.entries(schema.shape)) {
      let entry = vars.get(name);
      if (!entry) {
        entry = { name, readers: [], defaults: new Map(), descriptions: [] };
        vars.set(name, entry);
      }
      entry.readers.push(label);
      entry.defaults.set(label, defaultText(property));
      const text = comments.get(schemaName)?.get(name);
      if (!text) continue;
      const same = entry.descriptions.find((d) => d.text === text);
      if (same) same.readers.push(label);
      else entry.descriptions.push({ text, readers: [label] });
    }
  }
  const undocumented = [...vars.values()].filter((v) => v.descriptions.length === 0).map((v) => v.name);
  if (undocumented.length > 0) {
    throw new Error(`config/env.ts: no doc comment for ${undocumented.join(", ")}`);
  }
  return [...vars.values()];
}

function isObjectSchema(value: unknown): value is ObjectLike & ZodLike {
  return (
    typeof value === "object" &&
    value !== null &&
    "_zod" in value &&
    (value as ZodLike)._zod.def.type === "object" &&
    "shape" in value
  );
}

/** One description, or each with the readers that mean it when they differ. */
export function description(variable: EnvVar): string {
  if (variable.descriptions.length === 1) return variable.descriptions[0]!.text;
  return variable.descriptions.map((d) => `${d.readers.join(", ")}: ${d.text}`).join(" ");
}

/** The default as the table shows it; readers with different defaults are named. */
export function defaultLabel(variable: EnvVar, code: (text: string) => string = (t) => t): string {
  const show = (value: string | null | undefined) =>
    value === undefined ? "required" : value === null ? "unset" : code(value);
  const distinct = [...new Set(variable.defaults.values())];
  if (distinct.length === 1) return show(distinct[0]);
  return distinct
    .map((value) => {
      const readers = [...variable.defaults].filter(([, v]) => v === value).map(([label]) => label);
      return `${show(value)} (${readers.join(", ")})`;
    })
    .join(", ");
}

/** The value `.env.example` gives: the one default all readers share, else empty (each reader's own). */
function exampleValue(variable: EnvVar): string {
  const distinct = [...new Set(variable.defaults.values())];
  return distinct.length === 1 && typeof distinct[0] === "string" ? distinct[0] : "";
}

export const GENERATED_NOTE = "Generated by `npm run gen:env` from config/env.ts: edit the doc comments there.";

/** `.env.example`: one section per reader, each variable once (under the first reader of it). */
export function renderEnvExample(vars: EnvVar[]): string {
  const lines = [
    "# Every environment variable the platform's processes read, with its default. All are optional",
    "# locally. config/env.ts validates them at start-up; a bad value stops the process naming it.",
    `# ${GENERATED_NOTE.replaceAll("`", "")}`,
  ];
  for (const [, label] of READERS) {
    const here = vars.filter((v) => v.readers[0] === label);
    if (here.length === 0) continue;
    lines.push("", `# --- ${label} ---`);
    for (const variable of here) {
      const notes = [description(variable)];
      if (variable.readers.length > 1) notes.push(`Read by: ${variable.readers.join(", ")}.`);
      if (exampleValue(variable) === "" && new Set(variable.defaults.values()).size > 1) {
        notes.push(`Default: ${defaultLabel(variable)}.`);
      }
      lines.push(...wrap(notes.join(" "), 100).map((line) => `# ${line}`));
      lines.push(`${variable.name}=${exampleValue(variable)}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** The configuration table of docs/configuration.md (the text between its env markers). */
export function renderTable(vars: EnvVar[]): string {
  // Outside code spans, `<word>` would be read as an HTML tag.
  const cell = (text: string) =>
    text
      .split("`")
      .map((part, i) => (i % 2 === 1 ? part : part.replaceAll("<", "&lt;").replaceAll(">", "&gt;")))
      .join("`")
      .replaceAll("|", "\\|");
  const rows = vars.map(
    (v) =>
      `| \`${v.name}\` | ${cell(defaultLabel(v, (t) => `\`${t}\``))} | ${v.readers.join(", ")} | ${cell(description(v))} |`,
  );
  return [
    `<!-- ${GENERATED_NOTE} -->`,
    "",
    "| Variable | Default | Read by | Meaning |",
    "|---|---|---|---|",
    ...rows,
  ].join("\n");
}

export const TABLE_START = "<!-- env:start -->";
export const TABLE_END = "<!-- env:end -->";

/** `readme` with the text between the env markers replaced by `table`. */
export function withTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start)
    throw new Error(`the configuration document has no ${TABLE_START} ... ${TABLE_END} section`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}

/** Words of `text` in lines of at most `width` characters (a longer word gets a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}
