"""The HTTP client's politeness, without a network: a fake clock and a fake sleep."""

from surveytool.fetch import HttpClient, HttpSettings, _retry_after


class FakeTime:
    def __init__(self):
        self.now = 100.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 3))
        self.now += seconds


def test_requests_to_one_host_are_spaced_by_the_minimum_interval():
    time = FakeTime()
    client = HttpClient(HttpSettings("t", min_interval=0.5), sleep=time.sleep, clock=time.clock)
    client._wait_for_turn("http://api.example.org/a")
    time.now += 0.1
    client._wait_for_turn("http://api.example.org/b")
    client._wait_for_turn("http://other.example.org/c")  # another host does not wait
    assert time.slept == [0.4]


def test_retry_after_in_seconds_or_as_a_date():
    assert _retry_after("3") == 3.0
    assert _retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past: no wait
    assert _retry_after("soon") is None and _retry_after(None) is None
