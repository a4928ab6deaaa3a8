import type { ReactNode } from "react";
import { ApiError } from "../api/errors.ts";

/** Loading, empty and error states: designed once, used on every page. */

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p className="state loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="state empty">{children}</p>;
}

/** What went wrong, in the user's terms, and what they can do: wait, retry, or go elsewhere. */
export function describeError(error: unknown): { title: string; detail: string } {
  if (error instanceof ApiError) {
    if (error.status === 0)
      return { title: "The platform is not answering", detail: `${error.message}. It may be starting or stopped.` };
    if (error.status === 429)
      return {
        title: "Too many requests",
        detail: `The API limits requests per minute.${error.retryAfter !== null ? ` Retry after ${error.retryAfter} s.` : ""}`,
      };
    if (error.status === 503)
      return {
        title: "Temporarily unavailable",
        detail: `${error.message}${error.retryAfter !== null ? ` Retry after ${error.retryAfter} s.` : ""}`,
      };
    if (error.status === 404) return { title: "Not found", detail: error.message };
    return { title: `Error ${error.status} (${error.code})`, detail: error.message };
  }
  return { title: "Something went wrong", detail: error instanceof Error ? error.message : String(error) };
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { title, detail } = describeError(error);
  return (
    <div className="state error" role="alert">
      <strong>{title}</strong>
      <p>{detail}</p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

/** A query's three states in one place; `children` renders the data. */
export function QueryState<T>({
  query,
  children,
  loading,
}: {
  query: { data: T | undefined; error: unknown; isPending: boolean; refetch: () => unknown };
  children: (data: T) => ReactNode;
  loading?: string;
}) {
  if (query.data !== undefined) return <>{children(query.data)}</>;
  if (query.error) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  return <Loading label={loading} />;
}
