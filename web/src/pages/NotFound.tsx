import { Link } from "wouter";

export function NotFoundPage() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        Nothing lives at this address. Go to the <Link href="/">launchpad</Link>.
      </p>
    </>
  );
}
