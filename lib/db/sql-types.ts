/** What the journals need of a database: parameterized statements returning rows, and closing it. */
export interface Sql {
  query<R>(text: string, params?: readonly unknown[]): Promise<R[]>;
  close(): Promise<void>;
}
