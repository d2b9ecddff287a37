/**
 * The control plane's front (DESIGN §2, §10): an HTTP + JSON API (vertx-web) on a Unix domain socket, optionally
 * on TCP with a bearer token, described by {@code /openapi.json}, answering errors as RFC 9457 problem details; the
 * client the CLI uses; the Prometheus {@code /metrics}. Every change goes through
 * {@link io.blocktarget.server.ControlPlane#apply} with the desired full LUN list, validated by the config module's
 * own LUN reader, and (with a config directory) is written back to {@code luns.d/NAME.yaml}. It depends on server and
 * config; only cli depends on it.
 */
package io.blocktarget.control;
