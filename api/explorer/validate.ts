import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { invalidParam } from "../../lib/http/index.ts";

/**
 * FROM items (tables, views, CTE references, subqueries) a query may name, counted over the
 * whole query. Planning time grows with the join search: 60 joined relations took 4 s to plan on
 * PGlite, where planning cannot be interrupted; 12 is PostgreSQL's geqo_threshold, and explorer
 * queries join a handful.
 */
export const MAX_SQL_RELATIONS = 12;

/** Ponder's own /sql validator (ponder/dist/esm/utils/sql-parse.js, not in its exports map). */
interface PonderSqlParse {
  validateAllowableSQLQuery(sql: string): Promise<void>;
}
type ParseResult = {
  parse_tree: { stmts: { stmt?: AstNode }[] };
  error: { message: string; cursorpos: number } | null;
};
type AstNode = { [key: string]: unknown };

let loaded: Promise<{ ponder: PonderSqlParse; parse: (sql: string) => ParseResult }> | undefined;

/**
 * Loads the validator Ponder's client() runs and the parser it uses, from Ponder's own install:
 * the same allowlist (functions, node types, no system tables), in the same module instance.
 * ponder is pinned (0.17.7) and sql-guard.test.ts fails if the file moves.
 */
function load() {
  loaded ??= (async () => {
    const require = createRequire(import.meta.url);
    const dir = (require.resolve.paths("ponder") ?? [])
      .map((d) => join(d, "ponder"))
      .find((d) => existsSync(join(d, "package.json")));
    if (!dir) throw new Error("ponder is not installed");
    const file = join(dir, "dist", "esm", "utils", "sql-parse.js");
    const ponder = (await import(pathToFileURL(file).href)) as PonderSqlParse;
    const parser = createRequire(file).resolve("pg-query-emscripten");
    const { parse } = (await (await import(pathToFileURL(parser).href)).default()) as {
      parse: (sql: string) => ParseResult;
    };
    return { ponder, parse };
  })();
  return loaded;
}

/**
 * Refuses, with 400 INVALID_PARAM, what Ponder's client() would refuse and what would make the
 * planner itself work hard, before anything reaches the database: EXPLAIN is not free, as the
 * planner folds calls of immutable functions on constants (`length(repeat('x', 1e8))`: 2 s
 * on PGlite at plan time) and searches join orders.
 */
export async function validateClientSql(sql: string): Promise<void> {
  const { ponder, parse } = await load();
  const parsed = parse(sql);
  if (parsed.error) throw invalidParam("sql", `${parsed.error.message} at character ${parsed.error.cursorpos}`);
  const statements = parsed.parse_tree.stmts;
  if (statements.length !== 1 || !statements[0].stmt) throw invalidParam("sql", "must be exactly one statement");
  try {
    await ponder.validateAllowableSQLQuery(sql);
  } catch (error) {
    throw invalidParam("sql", `${error instanceof Error ? error.message : "refused"} (Ponder's /sql allowlist)`);
  }
  const shape = shapeOf(statements[0].stmt);
  if (shape.relations > MAX_SQL_RELATIONS) {
    throw invalidParam("sql", `names ${shape.relations} relations; at most ${MAX_SQL_RELATIONS} are allowed`);
  }
  if (shape.nestedReplace) {
    // Allowed by Ponder, but each level multiplies a string: 8 nested replace() calls in 242
    // characters build 100 MB and took 1.1 s on PGlite, per row or at plan time. One level is
    // bounded by the query's length (at most ~6 MB).
    throw invalidParam("sql", "replace() inside another replace() is not allowed");
  }
}

/** Counts FROM items and finds replace() nested in replace(), anywhere in the parse tree. */
function shapeOf(root: AstNode) {
  let relations = 0;
  let nestedReplace = false;
  const visit = (value: unknown, insideReplace: boolean): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item, insideReplace);
      return;
    }
    if (value === null || typeof value !== "object") return;
    for (const [key, child] of Object.entries(value)) {
      if (key === "RangeVar" || key === "RangeSubselect") relations++;
      let inside = insideReplace;
      if (key === "FuncCall" && isReplace(child)) {
        if (insideReplace) nestedReplace = true;
        inside = true;
      }
      visit(child, inside);
    }
  };
  visit(root, false);
  return { relations, nestedReplace };
}

function isReplace(call: unknown) {
  const names = (call as { funcname?: { String?: { sval?: string } }[] }).funcname ?? [];
  return names.at(-1)?.String?.sval?.toLowerCase() === "replace";
}
