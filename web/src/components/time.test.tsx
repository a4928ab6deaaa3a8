// @vitest-environment happy-dom
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ChainClockContext, RelativeTime } from "./time.tsx";

afterEach(cleanup);

describe("RelativeTime", () => {
  it("reads a block time against the chain's clock, which may lead the wall clock", () => {
    const blockTime = Math.floor(Date.now() / 1000) + 40; // a busy local chain, 40 s ahead
    render(
      <ChainClockContext value={40_000}>
        <p data-testid="chain">
          <RelativeTime time={blockTime} />
        </p>
        <p data-testid="wall">
          <RelativeTime time={blockTime} clock="wall" />
        </p>
      </ChainClockContext>,
    );
    expect(screen.getByTestId("chain").textContent).toBe("just now");
    expect(screen.getByTestId("wall").textContent).toMatch(/^in (39|40) s$/);
  });

  it("without a chain clock (none known yet) reads the wall clock", () => {
    render(<RelativeTime time={Math.floor(Date.now() / 1000) - 120} />);
    expect(screen.getByText("2 min ago")).toBeTruthy();
  });
});
