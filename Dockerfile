# Multi-stage build: a Swift image compiles `rangers` in release mode; the runtime
# image holds only the binary, the shared libraries it loads, and Content/.
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# libcurl 8 from bookworm-backports: Debian 12's 7.88 resets every HTTP/2 stream of a
# delivered push, and `rangers` refuses to send through it.
ARG BACKPORTS="deb http://deb.debian.org/debian bookworm-backports main"

FROM ${SWIFT_IMAGE} AS build
ARG BACKPORTS
RUN echo "$BACKPORTS" > /etc/apt/sources.list.d/backports.list \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libsqlite3-dev libssl-dev zlib1g-dev \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -t bookworm-backports \
      libcurl4-openssl-dev libcurl4 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Resolve dependencies in their own layer so source edits don't refetch them.
COPY Package.swift ./
RUN swift package resolve
COPY . .
# The Swift runtime and Foundation are linked in, so the runtime image needs no toolchain.
# The server's resources (the OpenAPI document) sit next to the binary.
RUN swift build -c release --product rangers --static-swift-stdlib \
 && bin="$(swift build -c release --show-bin-path)" \
 && install -D "$bin/rangers" /out/rangers \
 && cp -R "$bin/EmojiRangers_Server.resources" /out/
# The debug info out (81 of the binary's 211 MiB); its symbols stay, so a crash's backtrace still names functions.
RUN strip --strip-debug /out/rangers

FROM ${RUNTIME_IMAGE}
ARG BACKPORTS
# curl is there for the HEALTHCHECK only: a few hundred kilobytes over the libcurl the server
# loads anyway, where the image has no other HTTP client (no wget, no python).
RUN echo "$BACKPORTS" > /etc/apt/sources.list.d/backports.list \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates libsqlite3-0 libssl3 zlib1g tzdata \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -t bookworm-backports libcurl4 curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /data --no-create-home rangers \
 && mkdir -p /data && chown rangers:rangers /data
COPY --from=build /out/ /usr/local/bin/
COPY Content /app/Content
WORKDIR /data
ENV RANGERS_CONTENT=/app/Content RANGERS_DB=/data/rangers.sqlite RANGERS_HOST=0.0.0.0 RANGERS_PORT=8080
VOLUME ["/data"]
EXPOSE 8080
USER rangers
# Docker's health check (kept by `docker build` and by `buildah bud --format docker`; the OCI
# format has no place for it): the readiness route, 200 when the node can work (its database
# answers, its heartbeat is current, APNs answers), 503 naming what fails. /healthz, which
# answers whenever the process serves HTTP, is the liveness probe for orchestrators that ask both.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
    CMD curl -fsS -o /dev/null "http://127.0.0.1:${RANGERS_PORT:-8080}/readyz" || exit 1
ENTRYPOINT ["rangers"]
# No APNs is chosen here: `serve` refuses to start until RANGERS_APNS says apple (with
# APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID, APNS_ENVIRONMENT) or simulator.
CMD ["serve"]
