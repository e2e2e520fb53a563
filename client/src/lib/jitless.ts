/**
 * zod compiles object parsers with `new Function` when it may, and finds out whether it may by trying — which a
 * Content-Security-Policy without 'unsafe-eval' reports as a violation. The console runs under such a policy
 * (server/platform/http/Reply.ts), so zod is told up front not to try. Imported first by index.tsx, before any schema is built.
 */
import { z } from "zod"

z.config({ jitless: true })
