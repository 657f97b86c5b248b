// Asks the server at Deno.args[0] (`host:port`) for `/` with fetchCollector, or with a plain
// fetch when Deno.args[1] is `plain`, under whatever proxy variables this process was given, and
// prints the answer's text (or the error).
import { fetchCollector } from "../wire.ts";

const [address, how] = Deno.args;
const [host, port] = [address.slice(0, address.lastIndexOf(":")), Number(address.split(":").pop())];
const request = new Request(`http://${address}/`, {
  headers: { authorization: "Bearer probe-token" },
  signal: AbortSignal.timeout(10_000),
});
try {
  const response = how === "plain"
    ? await fetch(request)
    : await fetchCollector({ host, port }, request);
  console.log(await response.text());
} catch (error) {
  console.log(`error: ${(error as Error).message}`);
}
