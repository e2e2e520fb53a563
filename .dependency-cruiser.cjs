/**
 * The layering rules of docs/ARCHITECTURE.md, checked in `npm test` (`npm run lint:deps`). Arrows point down:
 *
 *   client ──► schema ◄── everything                 (schema imports nothing of ours)
 *   App.ts ──► actors ──► domains (their services) ──► platform
 *   App.ts ──► gateways ──► domains ──► platform
 *
 * Nothing imports upward: the platform no domain, gateway or actor; a domain no gateway or actor; a gateway no actor.
 * A domain, a gateway or an actor uses a domain through its services, never its Repo; an actor imports only the
 * files of a domain that declare a service (DOMAIN_SERVICES below). The client imports schema/, never the server.
 * App.ts, main.ts, test/ and bench/ may import anything.
 */
const fs = require("node:fs")
const path = require("node:path")

/** Paths (relative to the working directory, the repository's root) of the .ts files under `dir`. */
const filesUnder = (dir) =>
  !fs.existsSync(dir) ? [] : fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.posix.join(dir, e.name)
    return e.isDirectory() ? filesUnder(p) : e.name.endsWith(".ts") ? [p] : []
  })

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The files of server/domains that declare a domain service (`extends Effect.Service<`), Repos and config slices
 * excepted: what an actor may import from a domain (what it needs is a method of one of these services).
 */
const DOMAIN_SERVICES = filesUnder("server/domains").filter((f) =>
  !/Repo\.ts$/.test(f) && path.basename(f) !== "Config.ts" && /extends Effect\.Service</.test(fs.readFileSync(f, "utf8"))
)

/** What no layer below App may import: the composition root, the operator commands, the client, tests and benches. */
const TOP = "server/(App|main)\\.ts$|server/cli/|client/|test/|bench/"

module.exports = {
  forbidden: [
    {
      name: "platform-imports-upward",
      comment: "server/platform is the bottom layer: it never imports a domain, a gateway, an actor or App",
      severity: "error",
      from: { path: "^server/platform/" },
      to: { path: `^(server/(domains|gateways)/|actors/|${TOP})` }
    },
    {
      name: "domain-imports-upward",
      comment: "a domain never imports a gateway or an actor (front doors and actors use domains, not the other way round)",
      severity: "error",
      from: { path: "^server/domains/" },
      to: { path: `^(server/gateways/|actors/|${TOP})` }
    },
    {
      name: "domain-imports-another-domains-repo",
      comment: "a domain calls another domain's service, never its Repo",
      severity: "error",
      from: { path: "^server/domains/([^/]+)/" },
      to: { path: "^server/domains/[^/]+/.*Repo\\.ts$", pathNot: "^server/domains/$1/" }
    },
    {
      name: "gateway-imports-upward",
      comment: "a gateway composes domains and the platform; it never imports an actor",
      severity: "error",
      from: { path: "^server/gateways/" },
      to: { path: `^(actors/|${TOP})` }
    },
    {
      name: "gateway-imports-a-repo",
      comment: "a gateway calls domain services, never a domain's Repo",
      severity: "error",
      from: { path: "^server/gateways/" },
      to: { path: "^server/domains/[^/]+/.*Repo\\.ts$" }
    },
    {
      name: "actor-imports-gateway",
      comment: "actors sit above the domains, beside the gateways: an actor never imports a gateway or App",
      severity: "error",
      from: { path: "^actors/" },
      to: { path: `^(server/gateways/|${TOP})` }
    },
    {
      name: "actor-imports-domain-internals",
      comment: "an actor uses a domain through its services (a file declaring an Effect.Service), never its Repo, config or helpers",
      severity: "error",
      from: { path: "^actors/" },
      to: { path: "^server/domains/", pathNot: `^(${DOMAIN_SERVICES.map(escape).join("|")})$` }
    },
    {
      name: "actor-imports-another-actor",
      comment: "actors/<name>/ is one actor: it imports no other actor's folder (actors/index.ts lists them all)",
      severity: "error",
      from: { path: "^actors/([^/]+)/" },
      to: { path: "^actors/", pathNot: "^actors/$1/" }
    },
    {
      name: "cli-imports-actors",
      comment: "operator commands use domains and the platform, not the actors or App",
      severity: "error",
      from: { path: "^server/cli/" },
      to: { path: "^(actors/|server/(App|main)\\.ts$|client/|test/|bench/)" }
    },
    {
      name: "schema-imports-code",
      comment: "wire contracts are leaves: shared by server, client and tests",
      severity: "error",
      from: { path: "^schema/" },
      to: { path: "^(server|actors|client|test|bench)/" }
    },
    {
      name: "client-imports-server",
      comment: "the console speaks the wire contracts of schema/: it never imports the server or the actors",
      severity: "error",
      from: { path: "^client/" },
      to: { path: "^(server|actors|test|bench)/" }
    },
    {
      name: "no-circular",
      comment: "no import cycles",
      severity: "error",
      from: { path: "^(server|actors|schema|client)/" },
      to: { circular: true }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js"] }
  }
}
