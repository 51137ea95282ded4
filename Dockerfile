# syntax=docker/dockerfile:1
# The service image: one Node process serving REST, GraphQL and graphql-ws (WEB_CONCURRENCY workers
# of it, when set), or, with another command, a CLI task such as the webhook dispatch worker:
#   docker run … lms                                    # the server on port 3000
#   docker run … lms node dist/src/app/cli.js dispatch # a webhook delivery worker
# See docs/DEPLOYMENT.md: the one-container quick start (SQLite in the /app/data volume) and, with
# compose.yaml, the scale-out topology.
ARG NODE_VERSION=22

# ---- build: compile TypeScript with the dev dependencies ----
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches the platform.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ormconfig.ts ./
COPY migrations ./migrations
COPY src ./src
# (tsconfig.json builds incrementally for development; the image needs no build-info file.)
RUN npx tsc -p tsconfig.json && rm -f dist/.tsbuildinfo

# ---- production dependencies only ----
FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# ---- runtime: no compiler, no dev dependencies, not root ----
FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/app/data/lms.sqlite \
    FILES_DIR=/app/data/files
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The version GraphiQL, the landing page and the OpenAPI document report.
COPY package.json ./
# The embedded default keeps its SQLite file and uploads here; with MySQL and S3 it holds only temp uploads.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 3000
# Ready = the database (and Redis, when configured) answer; a load balancer and `docker compose` wait on it.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node handles SIGTERM itself (src/app/main.ts drains requests and, with WEB_CONCURRENCY, every worker).
CMD ["node", "dist/src/app/main.js"]
