export * from "./pool-math.ts";
