/**
 * The layering rule of docs/ARCHITECTURE.md, checked in `npm test` (`npm run lint:deps`):
 * gateways → domains → platform; a domain uses another domain's service, never its Repo; nothing imports upward.
 */
module.exports = {
  forbidden: [
    {
      name: "platform-imports-domain-or-gateway",
      comment: "server/platform is the bottom layer: it never imports a domain, a gateway, an actor or App",
      severity: "error",
      from: { path: "^server/platform/" },
      to: { path: "^(server/(domains|gateways|App\\.ts|main\\.ts|cli)|actors)/?" }
    },
    {
      name: "domain-imports-gateway",
      comment: "domains never import a gateway (front doors compose domains, not the other way round)",
      severity: "error",
      from: { path: "^server/domains/" },
      to: { path: "^server/(gateways|App\\.ts|main\\.ts|cli)/?" }
    },
    {
      name: "domain-imports-another-domains-repo",
      comment: "a domain calls another domain's service, never its Repo",
      severity: "error",
      from: { path: "^server/domains/([^/]+)/" },
      to: { path: "^server/domains/([^/]+)/(Repo|[A-Za-z]*Repo)\\.ts$", pathNot: "^server/domains/$1/" }
    },
    {
      name: "schema-imports-code",
      comment: "wire contracts are leaves: shared by server, client and tests",
      severity: "error",
      from: { path: "^schema/" },
      to: { path: "^(server|actors|client)/" }
    },
    {
      name: "no-circular",
      comment: "no import cycles in the server",
      severity: "error",
      from: { path: "^(server|actors)/" },
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
