// Exchange API keys and request signing: the client helpers, the verifier and the Hono middleware.
export {
  PUBLIC_KEY_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  isWellFormedSignature,
  methodCarriesBody,
  sign,
  signRequest,
  signatureText,
  verifySignature,
} from "./signing.ts";
export type { SignRequestInput, SignatureParts } from "./signing.ts";
export { DEFAULT_MAX_FUTURE_MS, DEFAULT_TIMESTAMP_WINDOW_MS, verifySignedRequest } from "./verify.ts";
export type {
  KeyResolver,
  ResolvedKey,
  SignedRequestHeaders,
  VerifySignedRequestInput,
  VerifySignedRequestResult,
} from "./verify.ts";
export { PRIVATE_KEY_PREFIX, PUBLIC_KEY_PREFIX, createKeyVault, generateApiKeyPair, parseServerKey } from "./keys.ts";
export type { ApiKeyPair, KeyVault } from "./keys.ts";
export { signatureRejection, signedRequest } from "./middleware.ts";
export { createReplayGuard, DEFAULT_REPLAY_CACHE_ENTRIES } from "./replay.ts";
export type { ClaimResult, ReplayGuard, ReplayGuardOptions } from "./replay.ts";
export type { SignedAuth, SignedRequestOptions, SignedVariables } from "./middleware.ts";
