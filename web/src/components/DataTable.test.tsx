// @vitest-environment happy-dom
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { type Column, DataTable } from "./DataTable.tsx";

afterEach(cleanup);

interface Row {
  id: string;
  side: "buy" | "sell";
  amount: string;
}

const COLUMNS: readonly Column<Row>[] = [
  { header: "Side", cell: (r) => r.side, cellProps: (r) => ({ className: `${r.side}-text`, title: r.id }) },
  { header: "Amount", numeric: true, cell: (r) => r.amount },
  { header: "Actions", hideHeader: true, cell: (r) => <button type="button">Cancel {r.id}</button> },
];
const ROWS: Row[] = [
  { id: "a", side: "buy", amount: "1.5" },
  { id: "b", side: "sell", amount: "2" },
];

describe("DataTable", () => {
  it("names the table, scopes its headers and lays out one row per item, in order", () => {
    render(<DataTable label="Orders" columns={COLUMNS} rows={ROWS} rowKey={(r) => r.id} empty="None." />);
    const table = screen.getByRole("table", { name: "Orders" });
    const headers = within(table).getAllByRole("columnheader");
    expect(headers.map((h) => [h.textContent, h.getAttribute("scope"), h.className])).toEqual([
      ["Side", "col", ""],
      ["Amount", "col", "num"],
      ["Actions", "col", ""],
    ]);
    // A column of buttons is named for screen readers without a visible title.
    expect(headers[2]!.querySelector(".visually-hidden")?.textContent).toBe("Actions");
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent))).toEqual([
      ["buy", "1.5", "Cancel a"],
      ["sell", "2", "Cancel b"],
    ]);
    const [side, amount] = rows[1]!.querySelectorAll("td");
    expect([side!.className, side!.title, amount!.className]).toEqual(["sell-text", "b", "num"]);
  });

  it("takes its name from a heading or a visible caption", () => {
    render(
      <>
        <h3 id="deals">Deals</h3>
        <DataTable labelledBy="deals" columns={COLUMNS} rows={ROWS} rowKey={(r) => r.id} empty="None." />
        <DataTable caption="Fills" columns={COLUMNS} rows={ROWS} rowKey={(r) => r.id} empty="None." />
      </>,
    );
    expect(screen.getByRole("table", { name: "Deals" })).toBeTruthy();
    expect(screen.getByRole("table", { name: "Fills" }).querySelector("caption")?.textContent).toBe("Fills");
  });

  it("says it is empty instead of showing a table without rows", () => {
    render(<DataTable label="Orders" columns={COLUMNS} rows={[]} rowKey={(r) => r.id} empty="No order yet." />);
    expect(screen.queryByRole("table")).toBeNull();
    expect(screen.getByText("No order yet.")).toBeTruthy();
  });

  it("shows a row's detail under it, across every column", () => {
    render(
      <DataTable
        label="Orders"
        columns={COLUMNS}
        rows={ROWS}
        rowKey={(r) => r.id}
        empty="None."
        detail={(r) => r.id === "a" && <p>fills of a</p>}
      />,
    );
    const rows = within(screen.getByRole("table")).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.textContent)).toEqual(["buy1.5Cancel a", "fills of a", "sell2Cancel b"]);
    expect(rows[1]!.querySelector("td")!.colSpan).toBe(3);
  });
});
