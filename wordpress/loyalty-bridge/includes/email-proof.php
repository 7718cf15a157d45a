<?php
/**
 * The customer proves they receive mail at their account's e-mail before the bridge takes it as who they are
 * (docs/wordpress-plugin.md §3). WooCommerce never checks that address: registration signs a new customer in at once,
 * and My Account › Account details changes it with no confirmation. Without a proof, anyone could register with the
 * address of a guest buyer, or of a member from another store, and see and spend their points.
 *
 * POST /wp-json/loyalty-bridge/v1/email-proof (a signed-in user, WordPress's REST nonce) mails a one-time link to the
 * account's e-mail; opening it, in any browser, keeps that address as proven. The identity token says
 * "emailProven": true only while the account's e-mail is still the one proven, so a changed address is proven again.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/** The address the customer proved, lower case. */
const LOYALTY_BRIDGE_PROVEN_META = 'loyalty_bridge_proven_email';
/** The link on its way: the SHA-256 of its secret, the address it was sent to, until when it works, when it went. */
const LOYALTY_BRIDGE_PROOF_META = 'loyalty_bridge_email_proof';
const LOYALTY_BRIDGE_PROOF_LIFETIME = 3600;
/** One mail a minute at most per customer: a button pressed again, or a script, floods nobody's inbox. */
const LOYALTY_BRIDGE_PROOF_INTERVAL = 60;
const LOYALTY_BRIDGE_PROOF_PARAM = 'loyalty_bridge_proof';

function loyalty_bridge_normal_email( string $email ): string {
	return strtolower( trim( $email ) );
}

/** Whether the account's e-mail is the one its owner proved. */
function loyalty_bridge_email_proven( WP_User $user ): bool {
	$proven = get_user_meta( $user->ID, LOYALTY_BRIDGE_PROVEN_META, true );
	$email  = loyalty_bridge_normal_email( (string) $user->user_email );
	return is_string( $proven ) && '' !== $proven && '' !== $email && hash_equals( $proven, $email );
}

function loyalty_bridge_register_email_proof_route(): void {
	register_rest_route(
		'loyalty-bridge/v1',
		'/email-proof',
		array(
			'methods'             => 'POST',
			'callback'            => 'loyalty_bridge_send_email_proof',
			'permission_callback' => 'loyalty_bridge_identity_permission',
		)
	);
}
add_action( 'rest_api_init', 'loyalty_bridge_register_email_proof_route' );

/** "a•••@example.com": where the link went, without spelling out the address on a page someone may look at. */
function loyalty_bridge_masked_email( string $email ): string {
	$at = strrpos( $email, '@' );
	return false === $at ? '' : mb_substr( $email, 0, 1 ) . '•••' . substr( $email, $at );
}

/** The link that proves the address: to the store's own pages, naming the user and the secret. */
function loyalty_bridge_proof_link( int $user_id, string $secret ): string {
	$link = add_query_arg( LOYALTY_BRIDGE_PROOF_PARAM, $secret, home_url( '/' ) );
	return add_query_arg( 'user', (string) $user_id, $link );
}

/** @return WP_REST_Response|WP_Error */
function loyalty_bridge_send_email_proof( WP_REST_Request $request ) {
	$user  = wp_get_current_user();
	$email = loyalty_bridge_normal_email( (string) $user->user_email );
	if ( '' === $email || ! is_email( $email ) ) {
		return new WP_Error( 'loyalty_bridge_no_email', __( 'Your account has no e-mail address: add one in your account details first.', 'loyalty-bridge' ), array( 'status' => 400 ) );
	}
	if ( loyalty_bridge_email_proven( $user ) ) {
		return new WP_REST_Response( array( 'proven' => true, 'message' => __( 'Your e-mail address is confirmed: reload the page to see your points.', 'loyalty-bridge' ) ) );
	}
	$now     = time();
	$pending = get_user_meta( $user->ID, LOYALTY_BRIDGE_PROOF_META, true );
	// Whatever address the last link went to: an account that swaps its address between presses (My Account ›
	// Account details saves as often as it is asked) mails no one more than once a minute.
	if ( is_array( $pending ) && (int) ( $pending['sent'] ?? 0 ) > $now - LOYALTY_BRIDGE_PROOF_INTERVAL ) {
		return new WP_Error( 'loyalty_bridge_proof_sent', __( 'We just sent you a link: check your inbox, or ask again in a minute.', 'loyalty-bridge' ), array( 'status' => 429 ) );
	}
	$secret = loyalty_bridge_base64url_encode( random_bytes( 32 ) );
	update_user_meta(
		$user->ID,
		LOYALTY_BRIDGE_PROOF_META,
		array(
			'hash'    => hash( 'sha256', $secret ),
			'email'   => $email,
			'expires' => $now + LOYALTY_BRIDGE_PROOF_LIFETIME,
			'sent'    => $now,
		)
	);
	$site = wp_specialchars_decode( (string) get_bloginfo( 'name' ), ENT_QUOTES );
	$sent = wp_mail(
		(string) $user->user_email,
		/* translators: %s: the store's name. */
		sprintf( __( 'Confirm your e-mail address to see your points at %s', 'loyalty-bridge' ), $site ),
		sprintf(
			/* translators: 1: the store's name, 2: the link. */
			__( "Open this link to confirm this is your e-mail address, and to see and spend your loyalty points at %1\$s:\n\n%2\$s\n\nThe link works once, for an hour. If you did not ask for it, ignore this e-mail.", 'loyalty-bridge' ),
			$site,
			loyalty_bridge_proof_link( $user->ID, $secret )
		)
	);
	if ( ! $sent ) {
		delete_user_meta( $user->ID, LOYALTY_BRIDGE_PROOF_META );
		return new WP_Error( 'loyalty_bridge_mail_failed', __( 'We could not send the e-mail just now. Try again later.', 'loyalty-bridge' ), array( 'status' => 503 ) );
	}
	return new WP_REST_Response(
		array(
			'sent'    => true,
			/* translators: %s: the e-mail address, partly hidden. */
			'message' => sprintf( __( 'We sent a link to %s. Open it, then come back to this page.', 'loyalty-bridge' ), loyalty_bridge_masked_email( $email ) ),
		)
	);
}

/**
 * Takes a proof link's secret for a user: whether it proved their address. Once only, within the hour, and only for
 * the address it was sent to (one changed since proves nothing).
 */
function loyalty_bridge_prove_email( int $user_id, string $secret, int $now ): bool {
	$user    = $user_id > 0 ? get_userdata( $user_id ) : false;
	$pending = $user ? get_user_meta( $user_id, LOYALTY_BRIDGE_PROOF_META, true ) : '';
	if ( ! $user || ! is_array( $pending ) || ! isset( $pending['hash'], $pending['email'], $pending['expires'] ) ) {
		return false;
	}
	if ( (int) $pending['expires'] < $now || ! hash_equals( (string) $pending['hash'], hash( 'sha256', $secret ) ) ) {
		return false;
	}
	if ( loyalty_bridge_normal_email( (string) $user->user_email ) !== $pending['email'] ) {
		return false;
	}
	delete_user_meta( $user_id, LOYALTY_BRIDGE_PROOF_META );
	update_user_meta( $user_id, LOYALTY_BRIDGE_PROVEN_META, $pending['email'] );
	return true;
}

/** Where a proof link lands: the customer's points where the store has its My Account tab, the home page otherwise. */
function loyalty_bridge_after_proof_url(): string {
	return function_exists( 'wc_get_account_endpoint_url' ) ? (string) wc_get_account_endpoint_url( 'points' ) : home_url( '/' );
}

/**
 * What opening a proof link does: the address to go to once it is taken (or refused), or null where the request is
 * no proof link. A GET is taken at once only in a browser signed in as the link's user: anything else that follows
 * the link (a mail provider's link scanner, which fetches every link in a mail as it arrives, or the owner of an
 * address that someone else's account put in, clicking a link they never asked for) gets a page asking to confirm
 * with a button (a POST), and takes nothing. Otherwise an account registered with a guest buyer's address, at a
 * company whose mail is scanned, would be proven by the scanner with no one clicking anything.
 *
 * @param array<string, mixed> $get     The query.
 * @param array<string, mixed> $post    The form, for a POST.
 */
function loyalty_bridge_email_proof_answer( string $method, array $get, array $post, int $signed_in, int $now ): ?string {
	$posted = 'POST' === strtoupper( $method );
	$from   = $posted ? $post : $get;
	if ( ! isset( $from[ LOYALTY_BRIDGE_PROOF_PARAM ], $from['user'] ) || ! is_string( $from[ LOYALTY_BRIDGE_PROOF_PARAM ] ) || ! is_string( $from['user'] ) ) {
		return null;
	}
	$secret  = sanitize_text_field( wp_unslash( $from[ LOYALTY_BRIDGE_PROOF_PARAM ] ) );
	$user_id = absint( wp_unslash( $from['user'] ) );
	// The link's own answers, 'confirmed' and 'expired', land on pages that carry no user: they are no link.
	if ( 1 !== preg_match( '/^[A-Za-z0-9_-]{43}$/', $secret ) ) {
		return add_query_arg( LOYALTY_BRIDGE_PROOF_PARAM, 'expired', loyalty_bridge_after_proof_url() );
	}
	// Signed in as someone else: whoever asked for the link, it is not this account's to confirm.
	if ( $signed_in > 0 && $signed_in !== $user_id ) {
		wp_die( esc_html__( 'This link confirms the e-mail address of another account. Sign out, or open it where you are signed in to that account.', 'loyalty-bridge' ), '', array( 'response' => 403 ) );
	}
	if ( ! $posted && $signed_in !== $user_id ) {
		loyalty_bridge_proof_confirm_page( $secret, $user_id );
		return null;
	}
	$proven = loyalty_bridge_prove_email( $user_id, $secret, $now );
	return add_query_arg( LOYALTY_BRIDGE_PROOF_PARAM, $proven ? 'confirmed' : 'expired', loyalty_bridge_after_proof_url() );
}

/**
 * The page a proof link opens outside its user's session: one button, which posts the link's secret back. It says the
 * same for every link (a user who exists or not, a secret right or wrong), and names no address.
 */
function loyalty_bridge_proof_confirm_page( string $secret, int $user_id ): void {
	nocache_headers();
	$site = wp_specialchars_decode( (string) get_bloginfo( 'name' ), ENT_QUOTES );
	$form = '<form method="post" action="' . esc_url( home_url( '/' ) ) . '">'
		. '<input type="hidden" name="' . esc_attr( LOYALTY_BRIDGE_PROOF_PARAM ) . '" value="' . esc_attr( $secret ) . '">'
		. '<input type="hidden" name="user" value="' . esc_attr( (string) $user_id ) . '">'
		. '<p>' . esc_html(
			/* translators: %s: the store's name. */
			sprintf( __( 'Confirm this is your e-mail address, to see and spend your loyalty points at %s. If you did not ask for this, close this page.', 'loyalty-bridge' ), $site )
		) . '</p>'
		. '<p><button type="submit">' . esc_html__( 'Confirm my e-mail address', 'loyalty-bridge' ) . '</button></p></form>';
	wp_die( $form, esc_html__( 'Confirm your e-mail address', 'loyalty-bridge' ), array( 'response' => 200 ) ); // phpcs:ignore WordPress.Security.EscapeOutput -- every part is escaped above.
}

/** A proof link opened (or its page's button pressed): taken, then the address without its secret. */
function loyalty_bridge_take_email_proof(): void {
	// phpcs:disable WordPress.Security.NonceVerification -- the link's own secret is what is checked.
	$to = loyalty_bridge_email_proof_answer(
		isset( $_SERVER['REQUEST_METHOD'] ) && is_string( $_SERVER['REQUEST_METHOD'] ) ? $_SERVER['REQUEST_METHOD'] : 'GET', // phpcs:ignore WordPress.Security.ValidatedSanitizedInput
		$_GET,
		$_POST,
		get_current_user_id(),
		time()
	);
	// phpcs:enable
	if ( null === $to ) {
		return;
	}
	nocache_headers();
	wp_safe_redirect( $to, 303 );
	loyalty_bridge_exit();
}
add_action( 'template_redirect', 'loyalty_bridge_take_email_proof' );

/** Ends the request after a redirect; a test replaces nothing here, it calls loyalty_bridge_prove_email. */
function loyalty_bridge_exit(): void {
	exit;
}
