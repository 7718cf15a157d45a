<?php
/**
 * The customer proves they receive mail at their account's e-mail before the bridge takes it as who they are
 * (docs/wordpress-plugin.md §3). WooCommerce never checks that address: registration signs a new customer in at once,
 * and My Account › Account details changes it with no confirmation. Without a proof, anyone could register with the
 * address of a guest buyer, or of a member from another store, and see and spend their points.
 *
 * POST /wp-json/loyalty-bridge/v1/email-proof (a signed-in user, WordPress's REST nonce) mails a one-time link to the
 * account's e-mail; opening it where that account is signed in keeps the address as proven. The identity token says
 * "emailProven": true only while the account's e-mail is still the one proven, so a changed address is proven again.
 *
 * What it keeps in the user's meta is sealed with an HMAC under the site's secret salt (wp-config.php), bound to the
 * user and the address: others can write a customer's meta (a shop manager, through WooCommerce's REST API, which
 * saves any meta_data on a customer; a plugin that saves the meta keys a form sends), and what they write, or copy
 * from another account, must prove nothing.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/** That the customer proved their address: the seal of the user and the address (lower case), never the address. */
const LOYALTY_BRIDGE_PROVEN_META = 'loyalty_bridge_proven_email';
/** The link on its way: the seal of its secret with the user, the address it was sent to and until when it works. */
const LOYALTY_BRIDGE_PROOF_META = 'loyalty_bridge_email_proof';
const LOYALTY_BRIDGE_PROOF_LIFETIME = 3600;
/** One mail a minute at most per customer: a button pressed again, or a script, floods nobody's inbox. */
const LOYALTY_BRIDGE_PROOF_INTERVAL = 60;
const LOYALTY_BRIDGE_PROOF_PARAM = 'loyalty_bridge_proof';

function loyalty_bridge_normal_email( string $email ): string {
	return strtolower( trim( $email ) );
}

/**
 * An HMAC-SHA256 (hex) under the site's secret salt over a purpose and its parts: what only this plugin, running
 * here, can write into a user's meta.
 *
 * @param list<int|string> $parts
 */
function loyalty_bridge_proof_seal( string $purpose, array $parts ): string {
	return hash_hmac( 'sha256', implode( "\0", array_merge( array( 'loyalty-bridge ' . $purpose ), array_map( 'strval', $parts ) ) ), wp_salt( 'auth' ) );
}

/** Keeps that the user proved this address. */
function loyalty_bridge_keep_proven( int $user_id, string $email ): void {
	update_user_meta( $user_id, LOYALTY_BRIDGE_PROVEN_META, loyalty_bridge_proof_seal( 'proven-email', array( $user_id, loyalty_bridge_normal_email( $email ) ) ) );
}

/** Whether the account's e-mail is the one its owner proved. */
function loyalty_bridge_email_proven( WP_User $user ): bool {
	$proven = get_user_meta( $user->ID, LOYALTY_BRIDGE_PROVEN_META, true );
	$email  = loyalty_bridge_normal_email( (string) $user->user_email );
	return is_string( $proven ) && '' !== $proven && '' !== $email
		&& hash_equals( loyalty_bridge_proof_seal( 'proven-email', array( (int) $user->ID, $email ) ), $proven );
}

/** The seal a waiting link keeps: of its secret, its user, the address it went to and until when it works. */
function loyalty_bridge_link_seal( int $user_id, string $email, int $expires, string $secret ): string {
	return loyalty_bridge_proof_seal( 'proof-link', array( $user_id, $email, $expires, $secret ) );
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
	$now = time();
	// Per account, whatever address the last link went to: an account that swaps its address between presses (My
	// Account › Account details saves as often as it is asked) mails no one more than once a minute. Claimed in one
	// step (mail-claim.php), so presses at once send one mail.
	if ( ! loyalty_bridge_claim_mail( $user->ID, $now, LOYALTY_BRIDGE_PROOF_INTERVAL ) ) {
		return new WP_Error( 'loyalty_bridge_proof_sent', __( 'We just sent you a link: check your inbox, or ask again in a minute.', 'loyalty-bridge' ), array( 'status' => 429 ) );
	}
	$secret  = loyalty_bridge_base64url_encode( random_bytes( 32 ) );
	$expires = $now + LOYALTY_BRIDGE_PROOF_LIFETIME;
	update_user_meta(
		$user->ID,
		LOYALTY_BRIDGE_PROOF_META,
		array(
			'hash'    => loyalty_bridge_link_seal( (int) $user->ID, $email, $expires, $secret ),
			'email'   => $email,
			'expires' => $expires,
		)
	);
	$site = wp_specialchars_decode( (string) get_bloginfo( 'name' ), ENT_QUOTES );
	$sent = wp_mail(
		(string) $user->user_email,
		/* translators: %s: the store's name. */
		sprintf( __( 'Confirm your e-mail address to see your points at %s', 'loyalty-bridge' ), $site ),
		sprintf(
			/* translators: 1: the store's name, 2: the link. */
			__( "Open this link where you are signed in to your account at %1\$s, to confirm this is your e-mail address and to see and spend your loyalty points:\n\n%2\$s\n\nThe link works once, for an hour. If you did not ask for it, ignore this e-mail.", 'loyalty-bridge' ),
			$site,
			loyalty_bridge_proof_link( $user->ID, $secret )
		)
	);
	if ( ! $sent ) {
		delete_user_meta( $user->ID, LOYALTY_BRIDGE_PROOF_META );
		loyalty_bridge_release_mail( $user->ID, $now );
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
 * the address it was sent to (one changed since proves nothing), and only a link this plugin made for this user.
 */
function loyalty_bridge_prove_email( int $user_id, string $secret, int $now ): bool {
	$user    = $user_id > 0 ? get_userdata( $user_id ) : false;
	$pending = $user ? get_user_meta( $user_id, LOYALTY_BRIDGE_PROOF_META, true ) : '';
	if ( ! $user || ! is_array( $pending ) || ! isset( $pending['hash'], $pending['email'], $pending['expires'] ) ) {
		return false;
	}
	$email   = (string) $pending['email'];
	$expires = (int) $pending['expires'];
	if ( $expires < $now || ! hash_equals( loyalty_bridge_link_seal( $user_id, $email, $expires, $secret ), (string) $pending['hash'] ) ) {
		return false;
	}
	if ( loyalty_bridge_normal_email( (string) $user->user_email ) !== $email ) {
		return false;
	}
	delete_user_meta( $user_id, LOYALTY_BRIDGE_PROOF_META );
	loyalty_bridge_keep_proven( $user_id, $email );
	return true;
}

/** Where a proof link lands: the customer's points where the store has its My Account tab, the home page otherwise. */
function loyalty_bridge_after_proof_url(): string {
	return function_exists( 'wc_get_account_endpoint_url' ) ? (string) wc_get_account_endpoint_url( 'points' ) : home_url( '/' );
}

/**
 * What opening a proof link does: the address to go to once it is taken (or refused), or null where the request is
 * no proof link. It is taken only in a browser signed in as the link's own account. Signed out, a page asks to sign
 * in to that account first, and takes nothing: a mail provider's link scanner (which fetches every link in a mail as
 * it arrives) proves nothing, and neither does the owner of an address someone else's account put in, following a
 * link she never asked for (a guest buyer whose address a stranger registered would otherwise hand the stranger her
 * points with one click). Signed in as another account, it is refused.
 *
 * @param array<string, mixed> $query The query (a GET) or the form (a POST), as sent.
 */
function loyalty_bridge_email_proof_answer( array $query, int $signed_in, int $now ): ?string {
	if ( ! isset( $query[ LOYALTY_BRIDGE_PROOF_PARAM ], $query['user'] ) || ! is_string( $query[ LOYALTY_BRIDGE_PROOF_PARAM ] ) || ! is_string( $query['user'] ) ) {
		return null;
	}
	$secret  = sanitize_text_field( wp_unslash( $query[ LOYALTY_BRIDGE_PROOF_PARAM ] ) );
	$user_id = absint( wp_unslash( $query['user'] ) );
	// The link's own answers, 'confirmed' and 'expired', land on pages that carry no user: they are no link.
	if ( 1 !== preg_match( '/^[A-Za-z0-9_-]{43}$/', $secret ) ) {
		return add_query_arg( LOYALTY_BRIDGE_PROOF_PARAM, 'expired', loyalty_bridge_after_proof_url() );
	}
	// Signed in as someone else: whoever asked for the link, it is not this account's to confirm.
	if ( $signed_in > 0 && $signed_in !== $user_id ) {
		wp_die( esc_html__( 'This link confirms the e-mail address of another account. Sign out, or open it where you are signed in to that account.', 'loyalty-bridge' ), '', array( 'response' => 403 ) );
	}
	if ( $signed_in !== $user_id ) {
		loyalty_bridge_proof_sign_in_page( loyalty_bridge_proof_link( $user_id, $secret ) );
		return null;
	}
	$proven = loyalty_bridge_prove_email( $user_id, $secret, $now );
	return add_query_arg( LOYALTY_BRIDGE_PROOF_PARAM, $proven ? 'confirmed' : 'expired', loyalty_bridge_after_proof_url() );
}

/**
 * The page a proof link opens signed out: sign in to the account that asked for it, and come back to the link. The
 * same for every link (an account that exists or not, a secret right or wrong); it names no account and no address.
 */
function loyalty_bridge_proof_sign_in_page( string $link ): void {
	nocache_headers();
	$site = wp_specialchars_decode( (string) get_bloginfo( 'name' ), ENT_QUOTES );
	$page = '<p>' . esc_html(
		/* translators: %s: the store's name. */
		sprintf( __( 'To confirm this e-mail address for your loyalty points at %s, sign in to the account that asked for this link. If you did not ask for it, close this page: nothing is confirmed.', 'loyalty-bridge' ), $site )
	) . '</p><p><a href="' . esc_url( wp_login_url( $link ) ) . '">' . esc_html__( 'Sign in to confirm', 'loyalty-bridge' ) . '</a></p>';
	wp_die( $page, esc_html__( 'Confirm your e-mail address', 'loyalty-bridge' ), array( 'response' => 200 ) ); // phpcs:ignore WordPress.Security.EscapeOutput -- every part is escaped above.
}

/** A proof link opened: taken, then the address without its secret. */
function loyalty_bridge_take_email_proof(): void {
	// phpcs:ignore WordPress.Security.NonceVerification -- the link's own secret, and who is signed in, are what is checked.
	$to = loyalty_bridge_email_proof_answer( $_GET, get_current_user_id(), time() );
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
