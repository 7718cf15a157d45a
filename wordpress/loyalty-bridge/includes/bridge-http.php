<?php
/**
 * The plugin's requests to the bridge, from this site's server (connect, disconnect). They go through WordPress's safe
 * HTTP (wp_safe_remote_post: http or https, ports 80, 443 and 8080, to no host that resolves to this machine or a
 * private network) and follow no redirect, so a pasted code can make this site reach a public bridge and nothing else
 * (not its own admin ports, not its network's services). With WP_DEBUG on, a bridge on this machine (a developer's,
 * a test's) is let through: exactly its host and port, for that one request.
 *
 * What the plugin shows of an answer is its own words: a refusal's words only where they are the bridge's.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/** True for the addresses a bridge on this machine answers at, the one place plain http is allowed. */
function loyalty_bridge_is_loopback_host( string $host ): bool {
	$host = strtolower( $host );
	// No IPv6 literal: WordPress's safe HTTP takes none ("[::1]"); a bridge on this machine is "localhost".
	return 'localhost' === $host
		|| ( false !== filter_var( $host, FILTER_VALIDATE_IP, FILTER_FLAG_IPV4 ) && str_starts_with( $host, '127.' ) );
}

/**
 * POSTs JSON to the bridge. A WP_Error when WordPress would not send it (an address it refuses) or it failed.
 *
 * @param array<string, mixed> $body
 * @return array|WP_Error As wp_safe_remote_post() answers.
 */
function loyalty_bridge_post_to_bridge( string $url, array $body, int $timeout ) {
	$allowed = loyalty_bridge_local_bridge_filters( $url, defined( 'WP_DEBUG' ) && WP_DEBUG );
	foreach ( $allowed as $hook => $filter ) {
		add_filter( $hook, $filter, 10, 3 );
	}
	try {
		return wp_safe_remote_post(
			$url,
			array(
				// No redirects: what is sent must reach the address the code named and no other.
				'redirection'         => 0,
				'timeout'             => $timeout,
				'limit_response_size' => 65536,
				'headers'             => array(
					'Content-Type' => 'application/json',
					'Accept'       => 'application/json',
				),
				'body'                => json_encode( $body, JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR ),
			)
		);
	} finally {
		foreach ( $allowed as $hook => $filter ) {
			remove_filter( $hook, $filter, 10 );
		}
	}
}

/**
 * The filters that let a bridge on this machine through WordPress's safe HTTP: only in debug mode, only for a loopback
 * host, and then exactly that host (http_request_host_is_external) and its port (http_allowed_safe_ports).
 *
 * @return array<string, Closure>
 */
function loyalty_bridge_local_bridge_filters( string $url, bool $debug ): array {
	$host = strtolower( (string) wp_parse_url( $url, PHP_URL_HOST ) );
	$port = (int) wp_parse_url( $url, PHP_URL_PORT );
	if ( ! $debug || ! loyalty_bridge_is_loopback_host( $host ) ) {
		return array();
	}
	$is_bridge = static fn ( $asked ): bool => is_string( $asked ) && strtolower( $asked ) === $host;
	return array(
		'http_request_host_is_external' => static fn ( $external, $asked = '' ) => $external || $is_bridge( $asked ),
		'http_allowed_safe_ports'       => static fn ( $ports, $asked = '' ) => $port > 0 && $is_bridge( $asked ) ? array_merge( (array) $ports, array( $port ) ) : $ports,
	);
}

/**
 * The plugin's own words for the bridge's refusal of a code (POST /woocommerce/plugin/connect answers 400
 * { "error": "<words>" }). Anything else a server answers is not shown: the code may name any server.
 */
function loyalty_bridge_refusal_words( mixed $said ): string {
	$known = array(
		'this code is unknown or was used: ask for a new one on your loyalty page'        => __( 'this code is unknown or was already used', 'loyalty-bridge' ),
		'this code has expired: ask for a new one on your loyalty page'                    => __( 'this code has expired', 'loyalty-bridge' ),
		'this code was made for another store: ask for one on this store’s loyalty page' => __( 'this code was made for another store', 'loyalty-bridge' ),
		'this is not a connection code: copy it again from your loyalty page'              => __( 'this is not a connection code', 'loyalty-bridge' ),
		'send JSON with the code and siteUrl'                                              => __( 'the plugin\'s request was not understood', 'loyalty-bridge' ),
		'siteUrl is not a web address'                                                     => __( 'this site\'s address is not a web address it knows', 'loyalty-bridge' ),
		'adminUrl must be on the site’s own address'                                     => __( 'this site\'s wp-admin is not on the site\'s own address', 'loyalty-bridge' ),
	);
	return is_string( $said ) && isset( $known[ $said ] ) ? $known[ $said ] : __( 'the code was not accepted', 'loyalty-bridge' );
}
