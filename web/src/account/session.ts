import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { usePlatform } from "../context.ts";
import { createAccountClient } from "./client.ts";
import { createSessionApi } from "./session-api.ts";

/** The exchange's web-account client, one per platform configuration. */
export function useAccountClient() {
  const { config } = usePlatform();
  return useMemo(() => createAccountClient(config), [config]);
}

/** The session-authenticated trading and wallet API, one per platform configuration. */
export function useSessionApi() {
  const { config } = usePlatform();
  return useMemo(() => createSessionApi(config), [config]);
}

/** Who is signed in to the exchange's web account (null: nobody), shared by every page. */
export function useExchangeAccount() {
  const client = useAccountClient();
  return useQuery({ queryKey: ["exchange-account"], queryFn: () => client.me(), retry: false });
}
