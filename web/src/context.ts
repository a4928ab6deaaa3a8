import { createContext, useContext } from "react";
import type { Api } from "./api/clients.ts";
import type { WebConfig } from "./config.ts";

export interface Platform {
  config: WebConfig;
  api: Api;
}

export const PlatformContext = createContext<Platform | null>(null);

export function usePlatform(): Platform {
  const platform = useContext(PlatformContext);
  if (!platform) throw new Error("usePlatform outside <PlatformContext>");
  return platform;
}
