<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

/** The identity route: a signed, five-minute token for the signed-in customer, never cached. */
final class IdentityTest extends TestCase {
	protected function setUp(): void {
		WP::reset();
		WP::$options['loyalty_bridge_connection'] = array( 'value' => test_connection(), 'autoload' => false );
	}

	public function test_the_route_is_a_get_for_signed_in_users(): void {
		loyalty_bridge_register_identity_route();
		[ [ $namespace, $route, $args ] ] = WP::calls( 'register_rest_route' );
		$this->assertSame( array( 'loyalty-bridge/v1', '/identity', 'GET' ), array( $namespace, $route, $args['methods'] ) );
		$this->assertSame( 'loyalty_bridge_identity_permission', $args['permission_callback'] );
	}

	public function test_a_guest_gets_401(): void {
		$refusal = loyalty_bridge_identity_permission();
		$this->assertInstanceOf( WP_Error::class, $refusal );
		$this->assertSame( 401, $refusal->get_error_data()['status'] );
	}

	public function test_a_signed_in_customer_passes(): void {
		WP::$user_id = 12;
		$this->assertTrue( loyalty_bridge_identity_permission() );
	}

	public function test_the_token_names_the_customer_by_their_account_email_for_five_minutes_and_no_phone(): void {
		// The billing e-mail and phone are what the customer typed at checkout (anyone's): they name nobody.
		WP::$user_meta[12] = array( 'billing_email' => 'someone-else@example.com', 'billing_phone' => '+44 20 7946 0000' );
		$user              = new WP_User( 12, 'ada@example.com' );

		[ $payload, $sig ] = explode( '.', loyalty_bridge_identity_token( test_connection(), $user, 1_700_000_000 ) );

		$this->assertSame(
			array(
				'purpose'     => 'storefront-identity',
				'store'       => 'shop.example',
				'keyId'       => 'pk_AAAAbbbbCCCC',
				'customerId'  => '12',
				'email'       => 'ada@example.com',
				'emailProven' => false,
				'iat'         => 1_700_000_000,
				'exp'         => 1_700_000_300,
			),
			decode_payload( $payload )
		);
		$this->assertSame( expected_signature( test_connection()['key'], 'loyalty-bridge identity v1', $payload ), $sig );
	}

	public function test_the_token_says_the_email_is_proven_only_while_it_is_the_one_proven(): void {
		loyalty_bridge_keep_proven( 12, 'ada@example.com' );
		$this->assertTrue( loyalty_bridge_identity_payload( test_connection(), new WP_User( 12, ' Ada@Example.com' ), 1 )['emailProven'] );
		// She changed her address in My Account since: the new one is nobody's until she proves it.
		$this->assertFalse( loyalty_bridge_identity_payload( test_connection(), new WP_User( 12, 'ada@elsewhere.example' ), 1 )['emailProven'] );
		// Another user's proof proves nothing of hers.
		$this->assertFalse( loyalty_bridge_identity_payload( test_connection(), new WP_User( 13, 'ada@example.com' ), 1 )['emailProven'] );
	}

	public function test_the_answer_is_the_token_and_is_never_stored(): void {
		WP::$user_id         = 12;
		WP::$user_emails[12] = 'account@example.com';

		$response = loyalty_bridge_identity_response( new WP_REST_Request() );

		$this->assertInstanceOf( WP_REST_Response::class, $response );
		$this->assertSame( 200, $response->status );
		$this->assertSame( 'no-store, private', $response->headers['Cache-Control'] );
		$this->assertCount( 1, WP::calls( 'nocache_headers' ) );
		$this->assertSame( array( array( 'nocache_headers', 'loyalty_bridge_no_store_headers', 10 ) ), WP::calls( 'add_filter' ), 'WordPress sends its no-cache headers last' );
		$this->assertSame(
			array( 'Expires' => 'Wed, 11 Jan 1984 05:00:00 GMT', 'Cache-Control' => 'no-store, private' ),
			loyalty_bridge_no_store_headers( array( 'Expires' => 'Wed, 11 Jan 1984 05:00:00 GMT', 'Cache-Control' => 'no-cache, must-revalidate, max-age=0' ) )
		);
		[ $payload, $sig ] = explode( '.', $response->data['token'] );
		$claims            = decode_payload( $payload );
		$this->assertSame( '12', $claims['customerId'] );
		$this->assertEqualsWithDelta( time(), $claims['iat'], 5 );
		$this->assertSame( $claims['iat'] + 300, $claims['exp'] );
		$this->assertSame( expected_signature( test_connection()['key'], 'loyalty-bridge identity v1', $payload ), $sig );
	}

	public function test_no_token_when_the_store_is_not_connected(): void {
		WP::$options = array();
		WP::$user_id = 12;
		$refusal     = loyalty_bridge_identity_response( new WP_REST_Request() );
		$this->assertInstanceOf( WP_Error::class, $refusal );
		$this->assertSame( 503, $refusal->get_error_data()['status'] );
	}
}
