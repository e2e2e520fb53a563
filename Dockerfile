# Production image: the same program, roles chosen by WHALE_ROLES. TLS terminates in front (uWS build has no TLS).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && rm -rf /root/.npm
EXPOSE 8080
USER node
CMD ["npm", "start"]
