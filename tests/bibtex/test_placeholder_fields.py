from surveytool.bibtex.fields import is_placeholder_key


def test_a_placeholder_key_is_recognised_in_the_old_shared_form_and_the_new_per_entry_form():
    # Files written before placeholders had labels of their own still say just "Unresolved".
    assert is_placeholder_key("Unresolved")
    assert is_placeholder_key("Unresolved anon-gain-85bb")
    assert not is_placeholder_key("Unresolvedness")
    assert not is_placeholder_key("Microsoft Research")
