<?php
/**
 * Steps of the real-WordPress smoke run that need WordPress loaded in PHP (no wp-cli on this machine):
 *   php wp-cli.php <wordpress dir> install <url>
 *   php wp-cli.php <wordpress dir> connect <code>
 *   php wp-cli.php <wordpress dir> session <login> <scheme: logged_in|auth> [<nonce action>] → "<cookie name> <cookie value> <nonce (wp_rest)> …"
 *   php wp-cli.php <wordpress dir> block
 *   php wp-cli.php <wordpress dir> post-as <login> <content>   → the published post's address (the user's kses applies)
 *   php wp-cli.php <wordpress dir> users                        → one login a line
 *   php wp-cli.php <wordpress dir> option <name> [<json>|delete] → the option as JSON, after setting or deleting it
 *   php wp-cli.php <wordpress dir> uninstall                    → deactivates the plugin and runs its uninstall.php
 */

declare(strict_types=1);

[ , $dir, $step ] = $argv;
$_SERVER['HTTP_HOST'] = 'localhost';
if ( 'install' === $step ) {
	define( 'WP_INSTALLING', true );
}
require $dir . '/wp-load.php';

switch ( $step ) {
	case 'install':
		require_once ABSPATH . 'wp-admin/includes/upgrade.php';
		wp_install( 'Smoke store', 'admin', 'admin@example.com', false, '', 'admin-password-1' );
		update_option( 'permalink_structure', '' );
		switch_theme( 'twentytwentyone' );
		// WooCommerce's installer gives administrators this capability (WC_Install::create_roles); there is no
		// WooCommerce here, so the smoke run gives it the same way.
		get_role( 'administrator' )->add_cap( 'manage_woocommerce' );
		$customer = wp_insert_user( array( 'user_login' => 'ada', 'user_pass' => 'customer-password-1', 'user_email' => 'ada.account@example.com', 'role' => 'subscriber' ) );
		update_user_meta( $customer, 'billing_email', 'ada@example.com' );
		update_user_meta( $customer, 'billing_phone', '+44 20 7946 0000' );
		wp_insert_user( array( 'user_login' => 'bea', 'user_pass' => 'customer-password-2', 'user_email' => 'bea.account@example.com', 'role' => 'subscriber' ) );
		// The roles an attacker may hold: an author (no unfiltered_html), and WooCommerce's shop manager (manages
		// WooCommerce, not the site: neither manage_options nor unfiltered_html), given a few of its capabilities.
		wp_insert_user( array( 'user_login' => 'mallet', 'user_pass' => 'author-password-1', 'user_email' => 'mallet@example.com', 'role' => 'author' ) );
		add_role( 'shop_manager', 'Shop manager', array_fill_keys( array( 'read', 'edit_posts', 'edit_published_posts', 'publish_posts', 'upload_files', 'list_users', 'manage_woocommerce', 'view_woocommerce_reports' ), true ) );
		wp_insert_user( array( 'user_login' => 'manager', 'user_pass' => 'manager-password-1', 'user_email' => 'manager@example.com', 'role' => 'shop_manager' ) );
		require_once ABSPATH . 'wp-admin/includes/plugin.php';
		$activated = activate_plugin( 'loyalty-bridge/loyalty-bridge.php' );
		if ( is_wp_error( $activated ) ) {
			fwrite( STDERR, $activated->get_error_message() . "\n" );
			exit( 1 );
		}
		$page = wp_insert_post( array( 'post_type' => 'page', 'post_status' => 'publish', 'post_title' => 'Rewards', 'post_content' => "[loyalty_points]\n\n<!-- wp:loyalty-bridge/points /-->" ) );
		echo add_query_arg( 'page_id', $page, home_url( '/' ) ), "\n";
		break;
	case 'connect':
		$result = loyalty_bridge_connect( $argv[3] );
		echo json_encode( $result['ok'] ? array( 'ok' => true, 'store' => $result['connection']['store'] ) : $result ), "\n";
		global $wpdb;
		echo 'autoload=', $wpdb->get_var( $wpdb->prepare( "SELECT autoload FROM {$wpdb->options} WHERE option_name = %s", 'loyalty_bridge_connection' ) ), "\n";
		break;
	case 'session':
		$user    = get_user_by( 'login', $argv[3] );
		$scheme  = $argv[4];
		$expires = time() + 3600;
		$token   = WP_Session_Tokens::get_instance( $user->ID )->create( $expires );
		$cookie  = wp_generate_auth_cookie( $user->ID, $expires, $scheme, $token );
		$name    = 'logged_in' === $scheme ? LOGGED_IN_COOKIE : AUTH_COOKIE;
		// The nonce is bound to the session the logged_in cookie names, as in a browser.
		$_COOKIE[ LOGGED_IN_COOKIE ] = 'logged_in' === $scheme ? $cookie : wp_generate_auth_cookie( $user->ID, $expires, 'logged_in', $token );
		wp_set_current_user( $user->ID );
		echo $name, ' ', $cookie, ' ', wp_create_nonce( $argv[5] ?? 'wp_rest' ), ' ', $_COOKIE[ LOGGED_IN_COOKIE ], ' ', LOGGED_IN_COOKIE, "\n";
		break;
	case 'post-as':
		// As that user: kses_init() runs on set_current_user, so the post is filtered as WordPress filters theirs.
		wp_set_current_user( get_user_by( 'login', $argv[3] )->ID );
		$post = wp_insert_post( array( 'post_status' => 'publish', 'post_title' => 'New notebooks', 'post_content' => $argv[4] ), true );
		echo is_wp_error( $post ) ? $post->get_error_message() : get_permalink( $post ), "\n";
		break;
	case 'users':
		echo implode( "\n", wp_list_pluck( get_users(), 'user_login' ) ), "\n";
		break;
	case 'option':
		if ( isset( $argv[4] ) && 'delete' === $argv[4] ) {
			delete_option( $argv[3] );
		} elseif ( isset( $argv[4] ) ) {
			delete_option( $argv[3] );
			add_option( $argv[3], json_decode( $argv[4], true ), '', false );
		}
		echo json_encode( get_option( $argv[3], null ) ), "\n";
		break;
	case 'uninstall':
		// Never delete_plugins(): the plugin's folder is a link to the repository's.
		require_once ABSPATH . 'wp-admin/includes/plugin.php';
		deactivate_plugins( 'loyalty-bridge/loyalty-bridge.php' );
		uninstall_plugin( 'loyalty-bridge/loyalty-bridge.php' );
		echo json_encode( get_option( 'loyalty_bridge_connection', null ) ), "\n";
		break;
	case 'block':
		$registered = WP_Block_Type_Registry::get_instance()->get_registered( 'loyalty-bridge/points' );
		echo null === $registered ? 'not registered' : 'registered, editor script ' . json_encode( $registered->editor_script ), "\n";
		echo do_blocks( '<!-- wp:loyalty-bridge/points /-->' ), "\n";
		break;
}
