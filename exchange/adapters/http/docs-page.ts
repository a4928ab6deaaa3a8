// A human-readable page of the OpenAPI document (/swagger), rendered on the server with no
// scripts or third-party assets, so it works offline and cannot drift from the JSON document.

// biome-ignore lint/suspicious/noExplicitAny: the page walks a document our own generator wrote, field by field
type Json = Record<string, any>;

const escapeHtml = (text: unknown) =>
  String(text ?? "").replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

function operationHtml(path: string, method: string, op: Json): string {
  const params = (op.parameters ?? []) as Json[];
  const rows = params
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${p.required ? "yes" : "no"}</td><td><code>${escapeHtml(JSON.stringify(p.schema))}</code></td><td>${escapeHtml(p.description)}</td></tr>`,
    )
    .join("");
  const responses = Object.entries(op.responses as Record<string, Json>)
    .map(([status, r]) => `<li><code>${escapeHtml(status)}</code> ${escapeHtml(r.description)}</li>`)
    .join("");
  const body = op.requestBody
    ? `<p>Body: <code>${escapeHtml(JSON.stringify(op.requestBody.content["application/json"].schema))}</code></p>`
    : "";
  return `<section id="${escapeHtml(op.operationId)}">
<h2><span class="method ${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code></h2>
<p><strong>${escapeHtml(op.summary)}</strong> <em>(${escapeHtml((op.tags ?? []).join(", "))})</em></p>
${op.description ? `<p>${escapeHtml(op.description)}</p>` : ""}
${rows ? `<table><tr><th>Parameter</th><th>In</th><th>Required</th><th>Schema</th><th>Description</th></tr>${rows}</table>` : ""}
${body}<ul>${responses}</ul></section>`;
}

export function docsPage(document: Json): string {
  const sections = Object.entries(document.paths as Record<string, Json>)
    .flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, op]) => operationHtml(path, method, op as Json)),
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(document.info.title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem}code{font-size:13px;word-break:break-all}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
.method{font-weight:bold;padding:0 .4rem;border-radius:3px;color:#fff}.get{background:#2b7}.post{background:#27b}.delete{background:#b33}
section{border-top:1px solid #ddd;padding-top:.5rem}</style></head>
<body><h1>${escapeHtml(document.info.title)} <small>${escapeHtml(document.info.version)}</small></h1><p>${escapeHtml(document.info.description)}</p>
<p>Machine-readable: <a href="/swagger/v1/swagger.json">/swagger/v1/swagger.json</a> (OpenAPI ${escapeHtml(document.openapi)}).</p>
${sections}
</body></html>`;
}
