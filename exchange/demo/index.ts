// The demo market (EXCHANGE_DEMO=true): its users and what each is credited, for the seed that
// backs those credits on the chain.
export { DEMO_USERS, demoDepositAmount, type DemoUserSpec } from "./users.ts";
