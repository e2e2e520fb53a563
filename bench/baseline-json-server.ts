/** Baseline: node:http serving a fixed JSON body (the same bytes the service answers). argv: <port> <json file> */
import { createServer } from "node:http"
import { readFileSync } from "node:fs"

const [port = "0", file = ""] = process.argv.slice(2)
const body = readFileSync(file)
createServer((req, res) => {
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length, "cache-control": "public, max-age=60" })
  res.end(body)
}).listen(Number(port), "127.0.0.1", () => process.stdout.write("ready\n"))
