import type { TxState } from "./tx.ts";

export function TxStatus({ state }: { state: TxState }) {
  if (state.phase === "idle") return null;
  const failed = state.phase === "failed";
  return (
    <p
      className={`tx-status ${failed ? "error-text" : state.phase === "done" ? "ok-text" : ""}`}
      role={failed ? "alert" : "status"}
    >
      {state.message}
      {state.hash && (
        <>
          {" "}
          <code title={state.hash}>{`${state.hash.slice(0, 10)}…`}</code>
        </>
      )}
    </p>
  );
}
