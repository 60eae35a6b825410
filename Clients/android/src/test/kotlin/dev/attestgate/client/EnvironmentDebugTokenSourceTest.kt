package dev.attestgate.client

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Test

/** The debug source set's JVM reader: `ATTESTGATE_DEBUG_TOKEN`, and the header it names. */
class EnvironmentDebugTokenSourceTest {
    private val text = "agdt_" + "b".repeat(43)

    @Test
    fun theVariableIsTheTokenForTheDebugTokenHeader() {
        val asked = ArrayList<String>()
        val token = EnvironmentDebugTokenSource { name -> asked.add(name); "$text\n" }.token()!!
        assertEquals(listOf("ATTESTGATE_DEBUG_TOKEN"), asked)
        assertEquals("X-Debug-Token", token.header)
        assertEquals(text, token.value, "trimmed: a secret pasted with its newline")
    }

    @Test
    fun anUnsetOrBlankVariableIsNoToken() {
        assertNull(EnvironmentDebugTokenSource { null }.token())
        assertNull(EnvironmentDebugTokenSource { " \n" }.token())
        assertNull(EnvironmentDebugTokenSource { "" }.token())
    }
}
