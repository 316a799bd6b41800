# Multi-stage build: a Swift image compiles `rangers` in release mode; the runtime
# image holds only the binary, the shared libraries it loads, and Content/.
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libcurl4-openssl-dev libsqlite3-dev libssl-dev \
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
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates libcurl4 libsqlite3-0 libssl3 tzdata \
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
CMD ["serve"]
