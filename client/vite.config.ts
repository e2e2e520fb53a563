import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"
import solid from "vite-plugin-solid"

const root = fileURLToPath(new URL(".", import.meta.url))

export default defineConfig({
  root,
  plugins: [solid()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true, target: "es2022" },
  server: { proxy: { "/api": "http://localhost:8080", "/auth": "http://localhost:8080", "/ws": { target: "ws://localhost:8080", ws: true } } }
})
