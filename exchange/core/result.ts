// Expected failures are values with stable codes; exceptions are reserved for bugs.
export type Result<T, C extends string = string> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly code: C; readonly message: string };

export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

export function fail<C extends string>(
  code: C,
  message: string,
): { readonly ok: false; readonly code: C; readonly message: string } {
  return { ok: false, code, message };
}
