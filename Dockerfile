# syntax=docker/dockerfile:1
# The same release binary as `cf push` (cargo build --release --locked), in a
# distroless image: glibc, libgcc and CA certificates, no shell, no package
# manager, runs as the unprivileged user `nonroot` (uid 65532).
#
#   docker build -t <REGISTRY>/order-exception-agent:<TAG> .
#   docker run --rm -p 8080:8080 <REGISTRY>/order-exception-agent:<TAG>
#
# Base images are pinned by tag and digest. The digests were taken from public
# Dockerfiles, not checked against the registries from the build machine;
# refresh both lines together, e.g. with
#   docker buildx imagetools inspect rust:1.95.0-bookworm
#   docker buildx imagetools inspect gcr.io/distroless/cc-debian12:nonroot
# Builder and runtime are both Debian 12 (glibc 2.36), so the binary matches
# the runtime's glibc. (For cf push with binary_buildpack the limit is
# glibc 2.35: use deploy/stage.sh, not this image's binary.)

FROM rust:1.95.0-bookworm@sha256:6258907abe69656e41cd992e0b705cdcfabcbbe3db374f92ed2d47121282d4a1 AS build
WORKDIR /src
# Everything the build reads at compile time (sources, data/ embedded with
# include_str!); .dockerignore keeps target/, .git and local files out.
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked --bin order-exception-agent \
    && install -D -m 0755 target/release/order-exception-agent /out/order-exception-agent

FROM gcr.io/distroless/cc-debian12:nonroot@sha256:9dac0a79194e45a7da0158a9c6da57b217585af0786db3845d1f0ec1a0dd182f
COPY --from=build /out/order-exception-agent /usr/local/bin/order-exception-agent
USER nonroot:nonroot
ENV RUST_LOG=info \
    AGENT__SERVER__HOST=0.0.0.0 \
    AGENT__SERVER__PORT=8080
EXPOSE 8080
# No HEALTHCHECK: the image has no shell or curl to run one, and the binary has
# no probe subcommand. Probe from outside: HTTP GET /health answers 200
# {"status":"UP",...} from memory (Cloud Foundry: health-check-type http,
# endpoint /health; Kubernetes: an httpGet probe on port 8080, path /health).
ENTRYPOINT ["/usr/local/bin/order-exception-agent"]
