// US states and the smaller US cities: those of smaller metros (their MSA in geo-us-metros.ts) and of micropolitan areas.

export const US_STATES: Readonly<Record<string, string>> = {
  AL: 'Alabama', AK: 'Alaska', AZ: 'Arizona', AR: 'Arkansas', CA: 'California', CO: 'Colorado', CT: 'Connecticut',
  DE: 'Delaware', DC: 'District of Columbia', FL: 'Florida', GA: 'Georgia', HI: 'Hawaii', ID: 'Idaho', IL: 'Illinois',
  IN: 'Indiana', IA: 'Iowa', KS: 'Kansas', KY: 'Kentucky', LA: 'Louisiana', ME: 'Maine', MD: 'Maryland',
  MA: 'Massachusetts', MI: 'Michigan', MN: 'Minnesota', MS: 'Mississippi', MO: 'Missouri', MT: 'Montana',
  NE: 'Nebraska', NV: 'Nevada', NH: 'New Hampshire', NJ: 'New Jersey', NM: 'New Mexico', NY: 'New York',
  NC: 'North Carolina', ND: 'North Dakota', OH: 'Ohio', OK: 'Oklahoma', OR: 'Oregon', PA: 'Pennsylvania',
  RI: 'Rhode Island', SC: 'South Carolina', SD: 'South Dakota', TN: 'Tennessee', TX: 'Texas', UT: 'Utah',
  VT: 'Vermont', VA: 'Virginia', WA: 'Washington', WV: 'West Virginia', WI: 'Wisconsin', WY: 'Wyoming',
};

/** "City ST" of smaller places, each weighted like a small metro: principal cities of the smaller metropolitan areas
 * (geo-us-metros.ts US_SMALLER_METROS gives their CBSA) and of micropolitan areas (Montpelier, Juneau, Concord NH,
 * Augusta ME, Hilo), which have no MSA. */
export const US_OTHER_CITIES: readonly string[] = (
  'Bozeman MT|Missoula MT|Billings MT|Helena MT|Flagstaff AZ|Yuma AZ|Prescott AZ|Burlington VT|Montpelier VT|' +
  'Bismarck ND|Fargo ND|Grand Forks ND|Sioux Falls SD|Rapid City SD|Cheyenne WY|Casper WY|Juneau AK|Fairbanks AK|' +
  'Duluth MN|St. Cloud MN|Eau Claire WI|Green Bay WI|Appleton WI|Lubbock TX|Amarillo TX|Laredo TX|Waco TX|Midland TX|' +
  'Odessa TX|Tyler TX|Beaumont TX|Corpus Christi TX|Brownsville TX|Tallahassee FL|Pensacola FL|Ocala FL|Naples FL|' +
  'Panama City FL|Mobile AL|Montgomery AL|Tuscaloosa AL|Dothan AL|Macon GA|Athens GA|Columbus GA|Charlottesville VA|' +
  'Roanoke VA|Lynchburg VA|Wilmington NC|Greenville NC|Erie PA|State College PA|Rockford IL|Peoria IL|Champaign IL|' +
  'Springfield IL|Springfield MO|Columbia MO|Lawrence KS|Topeka KS|Iowa City IA|Cedar Rapids IA|Sioux City IA|' +
  'Lafayette LA|Lake Charles LA|Medford OR|Bend OR|Salem OR|Yakima WA|Bellingham WA|Olympia WA|Santa Fe NM|' +
  'Las Cruces NM|Carson City NV|St. George UT|Logan UT|Redding CA|Chico CA|San Luis Obispo CA|Santa Cruz CA|' +
  'Salinas CA|Santa Rosa CA|Santa Barbara CA|Manchester NH|Concord NH|Nashua NH|Bangor ME|Augusta ME|Dover DE|' +
  'Trenton NJ|Atlantic City NJ|Ithaca NY|Binghamton NY|Utica NY|Kalamazoo MI|Flint MI|Saginaw MI|Traverse City MI|' +
  'South Bend IN|Evansville IN|Fort Wayne IN|Bloomington IN|Lafayette IN|Terre Haute IN|Jonesboro AR|Fort Smith AR|' +
  'Hattiesburg MS|Gulfport MS|Johnson City TN|Kingsport TN|Clarksville TN|Jackson TN|Bowling Green KY|Owensboro KY|' +
  'Morgantown WV|Wheeling WV|Hilo HI|Lawton OK'
).split('|');
