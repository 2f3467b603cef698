import requests

BASE = "https://weather.example.com"


def forecast(city):
    return requests.get(f"{BASE}/forecast", params={"city": city}).json()
