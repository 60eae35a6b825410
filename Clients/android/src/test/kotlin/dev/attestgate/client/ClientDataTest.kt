package dev.attestgate.client

import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Test
import java.util.Base64

/** The client-data document and its hashes against known answers (docs/api.md section 2). */
class ClientDataTest {
    @Test
    fun theDocumentIsTheServersSerializationAndItsHashIsTheKnownAnswer() {
        val data = ClientData.of(KnownAnswer.CHALLENGE, "POST", KnownAnswer.PATH, KnownAnswer.BODY)
        assertEquals(KnownAnswer.DOCUMENT, String(data.bytes, Charsets.UTF_8))
        assertEquals(KnownAnswer.REQUEST_HASH, data.requestHash)
        assertEquals(KnownAnswer.HEADER, data.header)
        assertArrayEquals(data.bytes, Base64.getDecoder().decode(data.header))
    }

    @Test
    fun bodySha256IsLowerHexOfTheRawBody() {
        // SHA-256("abc") and SHA-256(""), FIPS 180-2 (the server's WireContractTests use the first).
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", ClientData.bodySha256("abc".toByteArray()))
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", ClientData.bodySha256(ByteArray(0)))
        assertEquals(ClientData.bodySha256(ByteArray(0)), ClientData.of("c", "GET", "/v1/x", ByteArray(0)).bodySha256)
    }

    @Test
    fun challengeBindingHashesDeviceIdNewlineChallenge() {
        // printf 'a\nb' | sha256sum: the server's WireContractTests.challengeBindingKnownAnswer.
        assertEquals("7e18f737311b2dc3b2f269dd78396b0351f14fb66efa879f768cb23181883c78", ChallengeBinding.requestHash("a", "b"))
    }

    @Test
    fun stringsAreEscapedAsTheServerEscapesThem() {
        assertEquals("\"a\\\"b\\\\c\\n\\r\\t\\u0001\\u001f/\\u2028\\u2029é\"", JsonText.quote("a\"b\\c\n\r\t\u0001\u001f/\u2028\u2029é"))
    }

    @Test
    fun argumentsThatCannotBeARouteCallAreRefusedBeforeAnyIO() {
        assertThrows(IllegalArgumentException::class.java) { ClientData.of("c", "post", "/v1/x", ByteArray(0)) }
        assertThrows(IllegalArgumentException::class.java) { ClientData.of("c", "POST", "v1/x", ByteArray(0)) }
        assertThrows(IllegalArgumentException::class.java) { ClientData.of("c", "POST", "/v1/x?a=1", ByteArray(0)) }
        assertThrows(IllegalArgumentException::class.java) { ClientData.of("c", "POST", "/v1/a b", ByteArray(0)) }
        assertThrows(IllegalArgumentException::class.java) { ClientData.of("c", "POST", "/" + "x".repeat(2100), ByteArray(0)) }
    }
}

/**
 * One request and the document and hashes it must give. The document is what the server's
 * `WireContract.ClientData(challenge:method:path:body:)` writes for these inputs (members sorted by key,
 * no blanks); the hashes were computed apart from this library (`sha256sum`). `KnownAnswerServerTest`
 * has the real server accept a verdict carrying [REQUEST_HASH] for exactly this request.
 */
object KnownAnswer {
    const val DEVICE_ID = "6f9619ff-8b86-d011-b42d-00c04fc964ff"
    /** 32 bytes ab cd ef 12 34 56 78 90 (four times), the challenge of the server's ClientDataTests. */
    const val CHALLENGE = "q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA="
    const val PATH = "/v1/generate"
    val BODY: ByteArray = "{\"photo\":\"abc\"}".toByteArray()
    const val DOCUMENT = "{\"bodySHA256\":\"f576b84da3b8acea00e2d4b4663c56e876c96d6c093f9bb108d4532475cc1edd\"," +
        "\"challenge\":\"q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA=\",\"method\":\"POST\",\"path\":\"/v1/generate\"}"
    const val REQUEST_HASH = "7439f7efc9b2b0622ad339f8904a09dcb8881424c8fb7fc8bdc781d264055e75"
    const val HEADER = "eyJib2R5U0hBMjU2IjoiZjU3NmI4NGRhM2I4YWNlYTAwZTJkNGI0NjYzYzU2ZTg3NmM5NmQ2YzA5M2Y5YmIxMDhk" +
        "NDUzMjQ3NWNjMWVkZCIsImNoYWxsZW5nZSI6InE4M3ZFalJXZUpDcnplOFNORlo0a0t2Tjd4STBWbmlRcTgzdkVqUldlSkE9IiwibWV0" +
        "aG9kIjoiUE9TVCIsInBhdGgiOiIvdjEvZ2VuZXJhdGUifQ=="
}
