# Production image: the same program, roles chosen by WHALE_ROLES. TLS terminates in front (the uWS build has no TLS).
# Node 22 on Debian 12 (bookworm): the glibc (2.36) the tests run on, which the uWebSockets.js binary is checked on.
FROM node:22-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages ./packages
RUN npm ci --no-audit --no-fund --include=dev
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund && rm -rf /root/.npm
ENV NODE_ENV=production CONSOLE_BUILD=off
EXPOSE 8080
USER node
# The server is PID 1's only process: `docker stop` (SIGTERM) reaches it and it shuts down within SHUTDOWN_GRACE_MS.
CMD ["node", "--max-semi-space-size=32", "--import", "tsx", "server/main.ts"]
