import { lazy, Suspense } from "react";
import { Link, Redirect, Route, Switch } from "wouter";
import { Loading } from "./components/states.tsx";
import { LaunchpadPage } from "./pages/Launchpad.tsx";
import { NotFoundPage } from "./pages/NotFound.tsx";
import { ChainClock, ChainDownBanner } from "./wallet/ChainStatus.tsx";
import { WalletButton } from "./wallet/WalletButton.tsx";

// The launchpad is the first page and ships in the entry chunk; every other page (charts,
// wallet writes) loads when first visited, which keeps the first page's JavaScript small.
const TokenPage = lazy(() => import("./pages/TokenPage.tsx"));
const SpawnPage = lazy(() => import("./pages/Spawn.tsx"));
const MarketPage = lazy(() => import("./pages/Market.tsx"));
const AgentsPage = lazy(() => import("./pages/Agents.tsx"));
const ActionLogPage = lazy(() => import("./pages/ActionLog.tsx"));
const WorkerPage = lazy(() => import("./pages/Worker.tsx"));
const AccountPage = lazy(() => import("./pages/Account.tsx"));

export function App() {
  return (
    <ChainClock>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <Link href="/" className="brand">
          Agent ecosystem
        </Link>
        <nav aria-label="Main">
          <ul>
            <li>
              <Link href="/">Launchpad</Link>
            </li>
            <li>
              <Link href="/spawn">Spawn</Link>
            </li>
            <li>
              <Link href="/agents">Agents</Link>
            </li>
            <li>
              <Link href="/agents/actions">Action log</Link>
            </li>
            <li>
              <Link href="/market/ETH_USDT">Market</Link>
            </li>
            <li>
              <Link href="/account">Account</Link>
            </li>
          </ul>
        </nav>
        <WalletButton />
      </header>
      <ChainDownBanner />
      <main id="main" className="page">
        <Suspense fallback={<Loading />}>
          <Switch>
            <Route path="/" component={LaunchpadPage} />
            <Route path="/tokens/:address">
              {(params) => <TokenPage key={params.address} address={params.address} />}
            </Route>
            <Route path="/spawn" component={SpawnPage} />
            <Route path="/market">
              <Redirect to="/market/ETH_USDT" replace />
            </Route>
            <Route path="/market/:pair">{(params) => <MarketPage key={params.pair} pair={params.pair} />}</Route>
            <Route path="/account" component={AccountPage} />
            <Route path="/agents" component={AgentsPage} />
            <Route path="/agents/actions" component={ActionLogPage} />
            <Route path="/agents/workers/:tokenId">
              {(params) => <WorkerPage key={params.tokenId} tokenId={params.tokenId} />}
            </Route>
            <Route component={NotFoundPage} />
          </Switch>
        </Suspense>
      </main>
      <footer className="site-footer">
        <p>
          Charts by{" "}
          <a href="https://www.tradingview.com/" target="_blank" rel="noopener noreferrer">
            TradingView Lightweight Charts™
          </a>
          . Amounts are exact; times are relative to your clock.
        </p>
      </footer>
    </ChainClock>
  );
}
