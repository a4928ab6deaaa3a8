import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { WagmiProvider } from "wagmi";
import { createApi } from "./api/clients.ts";
import { retryDelay, shouldRetry } from "./api/errors.ts";
import { App } from "./app.tsx";
import { loadWebConfig } from "./config.ts";
import { PlatformContext } from "./context.ts";
import "./styles.css";
import { createWagmiConfig } from "./wallet/wagmi.ts";

const root = createRoot(document.getElementById("root")!);

async function start(): Promise<void> {
  let config: Awaited<ReturnType<typeof loadWebConfig>>;
  try {
    config = await loadWebConfig();
  } catch (error) {
    root.render(
      <main className="page">
        <h1>The platform's configuration could not be read</h1>
        <p role="alert">{(error as Error).message}</p>
        <p>The web server answers /config.json once the platform runs (npm start). Reload when it does.</p>
        <button type="button" onClick={() => location.reload()}>
          Reload
        </button>
      </main>,
    );
    return;
  }
  const queryClient = new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, retryDelay, staleTime: 5_000, refetchOnWindowFocus: false },
    },
  });
  const platform = { config, api: createApi(config) };
  root.render(
    <StrictMode>
      <PlatformContext value={platform}>
        <WagmiProvider config={createWagmiConfig(config)}>
          <QueryClientProvider client={queryClient}>
            <App />
          </QueryClientProvider>
        </WagmiProvider>
      </PlatformContext>
    </StrictMode>,
  );
}

void start();
