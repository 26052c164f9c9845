# The durable-agent worker image used by docker-compose.yml.
FROM node:20-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends ripgrep git ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Dev dependencies only to compile src/ to dist/ (bin runs the compiled code), then dropped.
RUN npm ci --ignore-scripts
COPY bin ./bin
COPY src ./src
COPY tsconfig.json tsconfig.build.json ./
RUN npm run build && npm prune --omit=dev
ENTRYPOINT ["node", "/app/bin/durable-agent.js"]
CMD ["worker"]
