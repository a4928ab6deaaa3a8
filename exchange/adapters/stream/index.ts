// Real-time streams: the exchange's market and user events over WebSocket (/ws), and the hub
// a gateway process uses to serve the same streams from NATS.
export { Hub, type HubHooks, type Subscriber, wireName } from "./hub.ts";
export { type Envelope, MarketFeed, userStream } from "./market-feed.ts";
export { streamLimits } from "./limits.ts";
export {
  connectNats,
  type PublishOptions,
  publishToNats,
  type RelayOptions,
  relayFromNats,
  DEFAULT_SUBJECT_PREFIX,
  natsSubjects,
  UserInterest,
} from "./nats.ts";
export {
  CHECK_MS as REVOCATION_CHECK_MS,
  publishRevocations,
  type RevocationWatch,
  watchRevocations,
} from "./revocations.ts";
export { ALL_TICKERS, type LoginParams, MARKET_STREAM, parseClientMessage } from "./protocol.ts";
export { type ExchangeStreams, type StreamSink, startExchangeStreams } from "./streams.ts";
export {
  attachStreamServer,
  CLOSE_IDLE,
  CLOSE_KEY_REVOKED,
  CLOSE_SLOW_CONSUMER,
  type LoginResult,
  type StreamLimits,
  type StreamServer,
  type StreamServerOptions,
  wsFrame,
} from "./ws-server.ts";
