import { RelativeTime } from "./time.tsx";

/**
 * When an override's suspension lifts by itself (its cool-off); a manager's suspension has no end
 * and shows nothing here.
 */
export function SuspensionEnd({ until }: { until: number | null }) {
  if (until === null) return null;
  return (
    <>
      {" "}
      Resumes by itself <RelativeTime time={until} /> unless lifted before.
    </>
  );
}
