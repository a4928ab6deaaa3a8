export function LaunchpadPage() {
  return <h1>Launchpad</h1>;
}
