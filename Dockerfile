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
      libsqlite3-dev libssl-dev \
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

FROM ${RUNTIME_IMAGE}
ARG BACKPORTS
RUN echo "$BACKPORTS" > /etc/apt/sources.list.d/backports.list \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates libsqlite3-0 libssl3 tzdata \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -t bookworm-backports libcurl4 \
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
ENTRYPOINT ["rangers"]
# No APNs is chosen here: `serve` refuses to start until RANGERS_APNS says apple (with
# APNS_KEY_FILE, APNS_KEY_ID, APNS_TEAM_ID, APNS_ENVIRONMENT) or simulator.
CMD ["serve"]
