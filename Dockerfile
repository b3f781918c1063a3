# syntax=docker/dockerfile:1
# ledgerline's one image: `ledgerline migrate`, `worker`, `web` and the demo profile's simulator all
# run from it (docker-compose.yml). Two stages: `build` installs every dependency, generates the
# Prisma client and compiles TypeScript to dist/; the runtime stage holds the compiled JavaScript,
# production dependencies only, and no TypeScript sources (so bin/ledgerline.js runs dist/).
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Dependencies first, so a source change does not reinstall them. --ignore-scripts: the root
# postinstall (prisma generate) needs the sources copied below; it runs after them.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
COPY src ./src
COPY jobs ./jobs
# The generated client (src/generated/prisma) is compiled into dist/ with the rest.
RUN npm run db:generate && npm run compile

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=dev: no compiler, linter or test runner at run time. --ignore-scripts: the postinstall
# would run `prisma generate`, whose CLI is a dev dependency; the client is already in dist/.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
# WEB_HOST stays loopback here: docker-compose.yml opens the page on the container's interfaces.
ENV NODE_ENV=production \
    EXPORT_DIR=/data/exports \
    CHROMIUM_PATH=/usr/bin/chromium
# Debian's chromium prints the tax-year pack's PDF (src/export/pack/print-pdf.ts, driven by
# playwright-core), with the fonts its page names; never a browser download at run time.
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY bin ./bin
COPY scripts/probe.js scripts/migrate-when-ready.sh ./scripts/
# prisma/: `ledgerline migrate` reads schema.prisma and migrations/ at run time.
COPY prisma ./prisma
COPY --from=build /app/dist ./dist
# The exports volume (and the demo simulator's anchor volume) are mounted here; created owned by
# `node` so a new named volume inherits it.
RUN mkdir -p /data/exports /data/simulator && chown node:node /data/exports /data/simulator
# The official image's unprivileged user (uid 1000); the application files stay root-owned, read-only to it.
USER node
# The worker's readiness probe on its default METRICS_PORT (docker-compose.yml sets one per service:
# the web page answers /readyz on WEB_PORT). 200 only while Postgres and Redis both answer.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "scripts/probe.js", "http://127.0.0.1:9464/readyz"]
ENTRYPOINT ["node", "bin/ledgerline.js"]
CMD ["--help"]
