<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

/** vectors.json is what this plugin signs today, and each signature is the contract's HMAC. */
final class VectorsTest extends TestCase {
	/** @return array<string, array{array<string, string>}> */
	public static function vectors(): array {
		$file = json_decode( (string) file_get_contents( __DIR__ . '/vectors.json' ), true, 512, JSON_THROW_ON_ERROR );
		$rows = array();
		foreach ( $file['vectors'] as $vector ) {
			$rows[ $vector['name'] ] = array( $vector );
		}
		return $rows;
	}

	/** @dataProvider vectors */
	public function test_the_plugin_signs_the_vector_as_written( array $vector ): void {
		$signed = loyalty_bridge_sign( $vector['key'], $vector['purpose'], decode_payload( $vector['payload'] ) );
		$this->assertSame( $vector['payload'], $signed['payload'] );
		$this->assertSame( $vector['signature'], $signed['sig'] );
		$this->assertSame( expected_signature( $vector['key'], $vector['purpose'], $vector['payload'] ), $vector['signature'] );
	}
}
