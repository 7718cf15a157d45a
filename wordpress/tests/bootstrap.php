<?php
/**
 * Just enough of WordPress for the plugin's functions to run under PHPUnit: each stub does what WordPress's
 * function does for the arguments the plugin passes, and records its calls in WP::$calls so a test can see what
 * the plugin asked WordPress to do.
 */

declare(strict_types=1);

define( 'ABSPATH', __DIR__ . '/' );
define( 'WP_DEBUG', false );
define( 'EP_ROOT', 64 );
define( 'EP_PAGES', 4096 );

final class WP {
	/** @var array<string, list<array<int, mixed>>> */
	public static array $calls = array();
	/** @var array<string, array{value: mixed, autoload: mixed}> */
	public static array $options = array();
	/** @var list<array|WP_Error> Answers wp_safe_remote_post() gives, first first. */
	public static array $http_answers = array();
	/** @var array<string, list<callable>> The filters on each hook now, as add_filter and remove_filter left them. */
	public static array $filters = array();
	public static int $user_id = 0;
	/** @var list<string> */
	public static array $capabilities = array();
	/** @var array<int, array<string, string>> */
	public static array $user_meta = array();
	/** @var array<int, string> */
	public static array $user_emails = array();
	public static string $version = '6.7';
	public static bool $referer_ok = true;
	public static bool $mail_fails = false;
	/** @var array<string, list<array<int, mixed>>> What the plugin asked of WordPress as it loaded. */
	public static array $load_calls = array();
	/**
	 * A multisite network's other sites: each one's options table, by blog id (the current site's is WP::$options).
	 * Empty: a single site.
	 *
	 * @var array<int, array<string, array{value: mixed, autoload: mixed}>>
	 */
	public static array $other_sites = array();
	public static int $blog_id = 1;
	/** @var list<int> The blogs switch_to_blog() left, last last. */
	public static array $blog_stack = array();
	public static bool $multisite = false;
	/** What WooCommerce's wc_get_page_permalink( 'myaccount' ) answers here; '': as if WooCommerce were not there. */
	public static string $account_page = '';

	public static function reset(): void {
		self::$calls        = array();
		self::$options      = array();
		self::$http_answers = array();
		self::$user_id      = 0;
		self::$capabilities = array();
		self::$user_meta    = array();
		self::$user_emails  = array();
		self::$version      = '6.7';
		self::$referer_ok   = true;
		self::$mail_fails   = false;
		self::$filters      = array();
		self::$other_sites  = array();
		self::$blog_id      = 1;
		self::$blog_stack   = array();
		self::$multisite    = false;
		self::$account_page = '';
		$GLOBALS['wpdb']    = new FakeWpdb();
	}

	public static function record( string $name, array $args ): void {
		self::$calls[ $name ][] = $args;
	}

	/** @return list<array<int, mixed>> */
	public static function calls( string $name ): array {
		return self::$calls[ $name ] ?? array();
	}
}

/** wp_die() ends the request; here it ends the test's call with this exception. */
final class WpDie extends RuntimeException {
	public function __construct( string $message, public readonly int $status ) {
		parent::__construct( $message );
	}
}

class WP_Error {
	public function __construct( public string $code = '', public string $message = '', public mixed $data = '' ) {}
	public function get_error_code(): string {
		return $this->code;
	}
	public function get_error_data(): mixed {
		return $this->data;
	}
}

class WP_User {
	public function __construct( public int $ID = 0, public string $user_email = '' ) {}
}

class WP_REST_Request {}

class WP_REST_Response {
	/** @var array<string, string> */
	public array $headers = array();
	public function __construct( public mixed $data = null, public int $status = 200 ) {}
	public function header( string $key, string $value, bool $replace = true ): void {
		$this->headers[ $key ] = $value;
	}
}

// Hooks: recorded; a filter runs only where a stub applies it (apply_filters), as WordPress's HTTP functions do.
function add_action( string $hook, $callback, int $priority = 10, int $args = 1 ): bool {
	WP::record( 'add_action', array( $hook, $callback, $priority ) );
	return true;
}
function add_filter( string $hook, $callback, int $priority = 10, int $args = 1 ): bool {
	WP::record( 'add_filter', array( $hook, $callback, $priority ) );
	WP::$filters[ $hook ][] = $callback;
	return true;
}
function remove_filter( string $hook, $callback, int $priority = 10 ): bool {
	WP::record( 'remove_filter', array( $hook, $callback, $priority ) );
	$had                  = in_array( $callback, WP::$filters[ $hook ] ?? array(), true );
	WP::$filters[ $hook ] = array_values( array_filter( WP::$filters[ $hook ] ?? array(), static fn ( $kept ) => $kept !== $callback ) );
	return $had;
}
function apply_filters( string $hook, $value, ...$args ) {
	foreach ( WP::$filters[ $hook ] ?? array() as $filter ) {
		$value = $filter( $value, ...$args );
	}
	return $value;
}
function register_activation_hook( string $file, $callback ): void {
	WP::record( 'register_activation_hook', array( $file, $callback ) );
}
function register_deactivation_hook( string $file, $callback ): void {
	WP::record( 'register_deactivation_hook', array( $file, $callback ) );
}
function add_shortcode( string $tag, $callback ): void {
	WP::record( 'add_shortcode', array( $tag, $callback ) );
}

// Translation and escaping, as WordPress does them for plain text.
function __( string $text, string $domain = 'default' ): string {
	return $text;
}
function esc_html( string $text ): string {
	return htmlspecialchars( $text, ENT_QUOTES, 'UTF-8' );
}
function esc_attr( string $text ): string {
	return htmlspecialchars( $text, ENT_QUOTES, 'UTF-8' );
}
function esc_html__( string $text, string $domain = 'default' ): string {
	return esc_html( $text );
}
/** Like WordPress's: only http(s) survives, and & becomes &#038; and quotes are encoded. */
function esc_url( string $url ): string {
	if ( 1 !== preg_match( '#^https?://#i', $url ) ) {
		return '';
	}
	$url = str_replace( array( '"', "'", '<', '>', ' ' ), array( '%22', '%27', '%3C', '%3E', '%20' ), $url );
	return str_replace( '&', '&#038;', $url );
}
function sanitize_key( string $key ): string {
	return preg_replace( '/[^a-z0-9_\-]/', '', strtolower( $key ) );
}
function wp_unslash( $value ) {
	return is_array( $value ) ? array_map( 'wp_unslash', $value ) : ( is_string( $value ) ? stripslashes( $value ) : $value );
}
function wp_parse_url( string $url, int $component = -1 ) {
	return parse_url( $url, $component );
}
function add_query_arg( string $key, string $value, string $url ): string {
	return $url . ( str_contains( $url, '?' ) ? '&' : '?' ) . rawurlencode( $key ) . '=' . rawurlencode( $value );
}

// Options.
function get_option( string $name, $default = false ) {
	return array_key_exists( $name, WP::$options ) ? WP::$options[ $name ]['value'] : $default;
}
function add_option( string $name, $value = '', string $deprecated = '', $autoload = 'yes' ): bool {
	WP::record( 'add_option', array( $name, $value, $autoload ) );
	if ( array_key_exists( $name, WP::$options ) ) {
		return false;
	}
	WP::$options[ $name ] = array(
		'value'    => $value,
		'autoload' => $autoload,
	);
	return true;
}
function delete_option( string $name ): bool {
	WP::record( 'delete_option', array( $name ) );
	$had = array_key_exists( $name, WP::$options );
	unset( WP::$options[ $name ] );
	return $had;
}

// Multisite: switch_to_blog() swaps the current site's options (WP::$options) for another's, as $wpdb's table
// prefix does in WordPress; restore_current_blog() swaps them back.
function is_multisite(): bool {
	return WP::$multisite;
}
/** @return list<int> Every site's id (the stub knows only 'fields' => 'ids'). */
function get_sites( array $args = array() ): array {
	WP::record( 'get_sites', array( $args ) );
	$ids = array_merge( array( WP::$blog_id ), array_keys( WP::$other_sites ) );
	sort( $ids );
	return 0 === ( $args['number'] ?? 100 ) ? $ids : array_slice( $ids, 0, (int) ( $args['number'] ?? 100 ) );
}
function get_current_blog_id(): int {
	return WP::$blog_id;
}
function test_swap_blog( int $to ): void {
	WP::$other_sites[ WP::$blog_id ] = WP::$options;
	WP::$options                     = WP::$other_sites[ $to ] ?? array();
	unset( WP::$other_sites[ $to ] );
	WP::$blog_id = $to;
}
function switch_to_blog( int $blog_id ): bool {
	WP::$blog_stack[] = WP::$blog_id;
	test_swap_blog( $blog_id );
	return true;
}
function restore_current_blog(): bool {
	if ( array() === WP::$blog_stack ) {
		return false;
	}
	test_swap_blog( array_pop( WP::$blog_stack ) );
	return true;
}

// HTTP.
function home_url( string $path = '' ): string {
	return 'https://shop.example' . ( '' === $path ? '' : '/' . ltrim( $path, '/' ) );
}
function wp_login_url( string $redirect = '' ): string {
	return 'https://shop.example/wp/wp-login.php' . ( '' === $redirect ? '' : '?redirect_to=' . rawurlencode( $redirect ) );
}
/** As WordPress answers it: with a trailing slash, where wp-admin is (here, as for WordPress in its own directory). */
function admin_url( string $path = '' ): string {
	return 'https://shop.example/wp/wp-admin/' . ltrim( $path, '/' );
}
/**
 * Records the request, and what WordPress's URL check (wp_http_validate_url) would ask the two filters that let a
 * local address through: whether the host counts as external, and the ports allowed for it.
 */
function wp_safe_remote_post( string $url, array $args ) {
	$host = (string) parse_url( $url, PHP_URL_HOST );
	WP::record(
		'wp_safe_remote_post',
		array(
			$url,
			$args,
			array(
				'external' => apply_filters( 'http_request_host_is_external', false, $host, $url ),
				'ports'    => apply_filters( 'http_allowed_safe_ports', array( 80, 443, 8080 ), $host, $url ),
			),
		)
	);
	return array_shift( WP::$http_answers ) ?? new WP_Error( 'http_request_failed', 'no answer queued' );
}
function is_wp_error( $thing ): bool {
	return $thing instanceof WP_Error;
}
function wp_remote_retrieve_response_code( $response ) {
	return is_array( $response ) ? $response['response']['code'] : '';
}
function wp_remote_retrieve_body( $response ): string {
	return is_array( $response ) ? $response['body'] : '';
}

// Users.
function current_user_can( string $capability ): bool {
	return in_array( $capability, WP::$capabilities, true );
}
function get_current_user_id(): int {
	return WP::$user_id;
}
function is_user_logged_in(): bool {
	return WP::$user_id > 0;
}
function wp_get_current_user(): WP_User {
	return new WP_User( WP::$user_id, WP::$user_emails[ WP::$user_id ] ?? '' );
}
function get_user_meta( int $user_id, string $key, bool $single = false ) {
	return WP::$user_meta[ $user_id ][ $key ] ?? '';
}
function update_user_meta( int $user_id, string $key, $value ) {
	WP::$user_meta[ $user_id ][ $key ] = $value;
	return true;
}
function delete_user_meta( int $user_id, string $key ): bool {
	$had = isset( WP::$user_meta[ $user_id ][ $key ] );
	unset( WP::$user_meta[ $user_id ][ $key ] );
	return $had;
}
/** delete_metadata( 'user', 0, $key, '', true ): the key gone from every user. */
function delete_metadata( string $type, int $object_id, string $key, $value = '', bool $delete_all = false ): bool {
	foreach ( WP::$user_meta as $user_id => $meta ) {
		unset( WP::$user_meta[ $user_id ][ $key ] );
	}
	return true;
}
/** @return WP_User|false A user WP::$user_emails knows. */
function get_userdata( int $user_id ) {
	return isset( WP::$user_emails[ $user_id ] ) ? new WP_User( $user_id, WP::$user_emails[ $user_id ] ) : false;
}
function is_email( string $email ) {
	return false !== filter_var( $email, FILTER_VALIDATE_EMAIL ) ? $email : false;
}
function absint( $value ): int {
	return abs( (int) $value );
}
function sanitize_text_field( string $text ): string {
	return trim( preg_replace( '/[\r\n\t ]+/', ' ', strip_tags( $text ) ) );
}
function wp_specialchars_decode( string $text, int $quote_style = ENT_NOQUOTES ): string {
	return htmlspecialchars_decode( $text, $quote_style );
}
/** Records the mail; WP::$mail_fails makes it fail as wp_mail() does when the site cannot send. */
function wp_mail( $to, string $subject, string $message, $headers = '', $attachments = array() ): bool {
	WP::record( 'wp_mail', array( $to, $subject, $message ) );
	return ! WP::$mail_fails;
}

// Responses.
function wp_die( string $message = '', string $title = '', array $args = array() ): never {
	throw new WpDie( $message, (int) ( $args['response'] ?? 500 ) );
}
function nocache_headers(): void {
	WP::record( 'nocache_headers', array() );
}
function wp_redirect( string $location, int $status = 302 ): bool {
	WP::record( 'wp_redirect', array( $location, $status ) );
	return true;
}
function wp_safe_redirect( string $location, int $status = 302 ): bool {
	WP::record( 'wp_safe_redirect', array( $location, $status ) );
	return true;
}
function auth_redirect(): void {}

// REST, scripts, rewrite, blocks.
function register_rest_route( string $namespace, string $route, array $args ): bool {
	WP::record( 'register_rest_route', array( $namespace, $route, $args ) );
	return true;
}
function rest_url( string $path = '' ): string {
	return 'https://shop.example/wp-json/' . ltrim( $path, '/' );
}
/** WooCommerce's address of one of its pages: here My Account's, WP::$account_page. */
function wc_get_page_permalink( string $page ): string {
	return 'myaccount' === $page ? WP::$account_page : 'https://shop.example/';
}
/** The site's secret salt, as wp-config.php's keys make it: here one fixed text per scheme. */
function wp_salt( string $scheme = 'auth' ): string {
	return 'test-salt-for-' . $scheme;
}
function wp_create_nonce( string $action ): string {
	return 'nonce-for-' . $action . '-' . WP::$user_id;
}
function get_bloginfo( string $show ): string {
	return 'version' === $show ? WP::$version : '';
}
function wp_enqueue_script( string $handle, string $src = '', array $deps = array(), $ver = false, $args = array() ): void {
	WP::record( 'wp_enqueue_script', array( $handle, $src, $deps, $ver, $args ) );
}
function add_rewrite_endpoint( string $name, int $places ): void {
	WP::record( 'add_rewrite_endpoint', array( $name, $places ) );
}
function flush_rewrite_rules(): void {
	WP::record( 'flush_rewrite_rules', array() );
}
function register_block_type( string $path, array $args = array() ): void {
	WP::record( 'register_block_type', array( $path, $args ) );
}

// Admin.
function add_submenu_page( string $parent, string $title, string $menu, string $cap, string $slug, $callback = null ) {
	WP::record( 'add_submenu_page', array( $parent, $title, $menu, $cap, $slug, $callback ) );
	return 'woocommerce_page_' . $slug;
}
function menu_page_url( string $slug, bool $display = true ): string {
	return 'https://shop.example/wp-admin/admin.php?page=' . $slug;
}
function check_admin_referer( string $action ) {
	WP::record( 'check_admin_referer', array( $action ) );
	if ( ! WP::$referer_ok ) {
		wp_die( 'The link you followed has expired.', '', array( 'response' => 403 ) );
	}
	return 1;
}
function wp_nonce_field( string $action, string $name = '_wpnonce', bool $referer = true, bool $display = true ): string {
	return '<input type="hidden" name="' . $name . '" value="nonce-for-' . $action . '">';
}

require __DIR__ . '/fake-wpdb.php';
$GLOBALS['wpdb'] = new FakeWpdb();

require dirname( __DIR__ ) . '/loyalty-bridge/loyalty-bridge.php';
WP::$load_calls = WP::$calls;

/**
 * The callback the plugin hooked to a hook as it loaded.
 *
 * @return mixed
 */
function hooked( string $kind, string $hook ) {
	foreach ( WP::$load_calls[ $kind ] ?? array() as $call ) {
		if ( $hook === $call[0] ) {
			return $call[1];
		}
	}
	return null;
}

/** A connection as the plugin keeps it, with a fixed key, for tests that sign. */
function test_connection(): array {
	return array(
		'bridge_url' => 'https://bridge.example',
		'store'      => 'shop.example',
		'key_id'     => 'pk_AAAAbbbbCCCC',
		'key'        => loyalty_bridge_base64url_encode( str_repeat( "\x01", 32 ) ),
	);
}

/** The contract's HMAC, written out again here so a test does not check the plugin against itself. */
function expected_signature( string $key_base64url, string $purpose, string $payload_base64url ): string {
	$key = base64_decode( strtr( $key_base64url, '-_', '+/' ) );
	return rtrim( strtr( base64_encode( hash_hmac( 'sha256', $purpose . '.' . $payload_base64url, $key, true ) ), '+/', '-_' ), '=' );
}

function decode_payload( string $payload_base64url ): array {
	return json_decode( base64_decode( strtr( $payload_base64url, '-_', '+/' ) ), true, 512, JSON_THROW_ON_ERROR );
}
