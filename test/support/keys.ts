/**
 * The keys every test, bench script and harness uses, so one value is known everywhere.
 *
 * `DEMO_KEY` is the full-access key of the simulator's first account: the one `npm start`, F5 and
 * the README hand to people, and the one tests sign in with. Tests that need a key the simulator
 * refuses, or a key of a particular shape (redaction tests), keep their own next to the assertion.
 */
export const DEMO_KEY = 'demo-key';

/** An OpenSSH public key line the simulator accepts as an account or instance SSH key. */
export const PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEh4bmOm9Ws8bc3Lw6vYgZzl6m2kX6v3K0dJq2k3Yq8B test@gpu-rental';
