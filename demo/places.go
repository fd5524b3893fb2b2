package demo

// place is a real Nigerian town or city: its name, the state it lies in
// (spelled as the 36 states and the Federal Capital Territory are in the
// OCHA and geoBoundaries layers), an approximate centre and a rough 2020
// population estimate of the built-up area, in people. Positions and
// populations are public facts rounded for a synthetic model; they are not
// survey figures.
type place struct {
	Name     string
	State    string
	Lat, Lon float64
	Pop      float64
}

// capitals are the 36 state capitals and Abuja, one per state, in the
// order of the state names. The capital's Name is the town; State is its
// state.
var capitals = []place{
	{"Umuahia", "Abia", 5.5263, 7.4896, 420e3},
	{"Yola", "Adamawa", 9.2350, 12.4600, 450e3},
	{"Uyo", "Akwa Ibom", 5.0377, 7.9128, 550e3},
	{"Awka", "Anambra", 6.2120, 7.0720, 400e3},
	{"Bauchi", "Bauchi", 10.3158, 9.8442, 600e3},
	{"Yenagoa", "Bayelsa", 4.9267, 6.2676, 400e3},
	{"Makurdi", "Benue", 7.7337, 8.5214, 420e3},
	{"Maiduguri", "Borno", 11.8333, 13.1500, 1.1e6},
	{"Calabar", "Cross River", 4.9757, 8.3417, 600e3},
	{"Asaba", "Delta", 6.1980, 6.7319, 500e3},
	{"Abakaliki", "Ebonyi", 6.3249, 8.1137, 300e3},
	{"Benin City", "Edo", 6.3350, 5.6037, 1.8e6},
	{"Ado-Ekiti", "Ekiti", 7.6211, 5.2214, 500e3},
	{"Enugu", "Enugu", 6.4584, 7.5464, 800e3},
	{"Abuja", "Federal Capital Territory", 9.0579, 7.4951, 2.2e6},
	{"Gombe", "Gombe", 10.2897, 11.1673, 400e3},
	{"Owerri", "Imo", 5.4840, 7.0351, 500e3},
	{"Dutse", "Jigawa", 11.7564, 9.3389, 200e3},
	{"Kaduna", "Kaduna", 10.5105, 7.4165, 1.6e6},
	{"Kano", "Kano", 12.0001, 8.5167, 4.1e6},
	{"Katsina", "Katsina", 12.9908, 7.6018, 500e3},
	{"Birnin Kebbi", "Kebbi", 12.4539, 4.1975, 250e3},
	{"Lokoja", "Kogi", 7.8023, 6.7333, 200e3},
	{"Ilorin", "Kwara", 8.4966, 4.5421, 1.0e6},
	{"Ikeja", "Lagos", 6.6018, 3.3515, 2.6e6},
	{"Lafia", "Nasarawa", 8.4939, 8.5153, 300e3},
	{"Minna", "Niger", 9.6139, 6.5569, 500e3},
	{"Abeokuta", "Ogun", 7.1475, 3.3619, 600e3},
	{"Akure", "Ondo", 7.2571, 5.2058, 550e3},
	{"Osogbo", "Osun", 7.7827, 4.5418, 500e3},
	{"Ibadan", "Oyo", 7.3775, 3.9470, 3.6e6},
	{"Jos", "Plateau", 9.8965, 8.8583, 900e3},
	{"Port Harcourt", "Rivers", 4.8156, 7.0498, 2.6e6},
	{"Sokoto", "Sokoto", 13.0059, 5.2476, 700e3},
	{"Jalingo", "Taraba", 8.8937, 11.3596, 200e3},
	{"Damaturu", "Yobe", 11.7470, 11.9608, 150e3},
	{"Gusau", "Zamfara", 12.1628, 6.6614, 400e3},
}

// towns are other real towns and, for Lagos and Abuja, the districts of the
// metropolis, each in its state. With the capitals they name the synthetic
// local government areas and carry the urban part of the population model.
var towns = []place{
	// Lagos: the metropolis as its districts, about 15 million in all
	// with Ikeja above.
	{"Lagos Island", "Lagos", 6.4541, 3.3947, 1.2e6},
	{"Mushin", "Lagos", 6.5300, 3.3500, 3.2e6},
	{"Alimosho", "Lagos", 6.6100, 3.2600, 3.0e6},
	{"Apapa", "Lagos", 6.4500, 3.3600, 1.0e6},
	{"Ikorodu", "Lagos", 6.6194, 3.5105, 1.2e6},
	{"Eti-Osa", "Lagos", 6.4400, 3.5200, 900e3},
	{"Ojo", "Lagos", 6.4700, 3.1800, 900e3},
	{"Agege", "Lagos", 6.6250, 3.3200, 800e3},
	{"Badagry", "Lagos", 6.4150, 2.8813, 250e3},
	{"Epe", "Lagos", 6.5841, 3.9834, 200e3},

	// Kano
	{"Wudil", "Kano", 11.7940, 8.8390, 120e3},
	{"Gaya", "Kano", 11.8600, 9.0000, 80e3},
	{"Rano", "Kano", 11.5570, 8.5830, 80e3},
	{"Bichi", "Kano", 12.2330, 8.2410, 120e3},
	{"Dambatta", "Kano", 12.4330, 8.5170, 80e3},
	{"Karaye", "Kano", 11.7850, 8.0150, 60e3},
	{"Tudun Wada", "Kano", 11.2500, 8.4000, 60e3},
	{"Gwarzo", "Kano", 11.9170, 7.9330, 60e3},
	{"Kura", "Kano", 11.7720, 8.4280, 80e3},
	{"Kiru", "Kano", 11.7000, 8.1330, 50e3},
	{"Sumaila", "Kano", 11.5330, 8.9500, 50e3},
	{"Kunchi", "Kano", 12.5000, 8.2700, 40e3},

	// Kaduna
	{"Zaria", "Kaduna", 11.0855, 7.7199, 1.0e6},
	{"Kafanchan", "Kaduna", 9.5833, 8.2926, 120e3},
	{"Saminaka", "Kaduna", 10.4120, 8.6880, 60e3},
	{"Birnin Gwari", "Kaduna", 10.6600, 6.5400, 50e3},
	{"Zonkwa", "Kaduna", 9.7800, 8.2900, 60e3},
	{"Kachia", "Kaduna", 9.8700, 7.9500, 60e3},
	{"Ikara", "Kaduna", 11.1800, 8.2300, 50e3},
	{"Makarfi", "Kaduna", 11.3800, 7.8800, 40e3},
	{"Kagarko", "Kaduna", 9.4900, 7.6700, 40e3},
	{"Giwa", "Kaduna", 11.2700, 7.4300, 40e3},

	// Katsina
	{"Funtua", "Katsina", 11.5233, 7.3081, 300e3},
	{"Daura", "Katsina", 13.0333, 8.3167, 150e3},
	{"Malumfashi", "Katsina", 11.7900, 7.6200, 120e3},
	{"Dutsin-Ma", "Katsina", 12.4500, 7.5000, 80e3},
	{"Kankia", "Katsina", 12.5500, 7.8200, 60e3},
	{"Jibia", "Katsina", 13.0900, 7.2200, 60e3},
	{"Kankara", "Katsina", 11.9300, 7.4100, 60e3},
	{"Mani", "Katsina", 12.8600, 7.8600, 40e3},
	{"Batsari", "Katsina", 12.7500, 7.2500, 40e3},

	// Jigawa
	{"Hadejia", "Jigawa", 12.4498, 10.0444, 120e3},
	{"Kazaure", "Jigawa", 12.6500, 8.4100, 80e3},
	{"Gumel", "Jigawa", 12.6300, 9.3900, 60e3},
	{"Birnin Kudu", "Jigawa", 11.4500, 9.4800, 60e3},
	{"Ringim", "Jigawa", 12.1500, 9.1600, 60e3},
	{"Kafin Hausa", "Jigawa", 12.2400, 9.9100, 40e3},
	{"Babura", "Jigawa", 12.7700, 9.0200, 40e3},

	// Zamfara
	{"Kaura Namoda", "Zamfara", 12.5936, 6.5869, 120e3},
	{"Talata Mafara", "Zamfara", 12.5700, 6.0700, 80e3},
	{"Anka", "Zamfara", 12.1100, 5.9300, 50e3},
	{"Tsafe", "Zamfara", 11.9600, 6.9200, 50e3},
	{"Zurmi", "Zamfara", 12.7800, 6.7900, 40e3},
	{"Maru", "Zamfara", 12.3300, 6.4000, 40e3},

	// Sokoto
	{"Wurno", "Sokoto", 13.2900, 5.4200, 40e3},
	{"Tambuwal", "Sokoto", 12.4000, 4.6500, 40e3},
	{"Illela", "Sokoto", 13.7300, 5.3000, 50e3},
	{"Gwadabawa", "Sokoto", 13.3600, 5.2400, 40e3},
	{"Isa", "Sokoto", 13.2000, 6.4000, 40e3},
	{"Sabon Birni", "Sokoto", 13.5639, 6.3236, 40e3},
	{"Goronyo", "Sokoto", 13.4400, 5.6700, 30e3},

	// Kebbi
	{"Argungu", "Kebbi", 12.7448, 4.5251, 80e3},
	{"Yauri", "Kebbi", 10.7700, 4.7700, 60e3},
	{"Zuru", "Kebbi", 11.4300, 5.2300, 80e3},
	{"Jega", "Kebbi", 12.2200, 4.3800, 80e3},
	{"Koko", "Kebbi", 11.4200, 4.5200, 40e3},
	{"Kamba", "Kebbi", 11.8500, 3.6500, 30e3},
	{"Bagudo", "Kebbi", 11.4035, 4.2257, 30e3},

	// Niger
	{"Bida", "Niger", 9.0804, 6.0100, 250e3},
	{"Suleja", "Niger", 9.1806, 7.1794, 300e3},
	{"Kontagora", "Niger", 10.4030, 5.4699, 150e3},
	{"New Bussa", "Niger", 9.8800, 4.5200, 40e3},
	{"Mokwa", "Niger", 9.2900, 5.0500, 60e3},
	{"Lapai", "Niger", 9.0500, 6.5700, 50e3},
	{"Rijau", "Niger", 11.1000, 5.2500, 30e3},
	{"Kagara", "Niger", 10.1866, 6.2549, 40e3},
	{"Agaie", "Niger", 9.0100, 6.3200, 40e3},
	{"Wushishi", "Niger", 9.7300, 6.0700, 30e3},
	{"Mariga", "Niger", 10.6500, 5.8600, 20e3},

	// Kwara
	{"Offa", "Kwara", 8.1491, 4.7207, 150e3},
	{"Omu-Aran", "Kwara", 8.1400, 5.1000, 60e3},
	{"Jebba", "Kwara", 9.1300, 4.8200, 40e3},
	{"Lafiagi", "Kwara", 8.8500, 5.4200, 40e3},
	{"Kaiama", "Kwara", 9.6100, 3.9400, 30e3},
	{"Patigi", "Kwara", 8.7300, 5.7500, 30e3},

	// Oyo
	{"Ogbomosho", "Oyo", 8.1333, 4.2500, 450e3},
	{"Oyo", "Oyo", 7.8500, 3.9333, 400e3},
	{"Iseyin", "Oyo", 7.9667, 3.6000, 200e3},
	{"Saki", "Oyo", 8.6667, 3.3833, 180e3},
	{"Igboho", "Oyo", 8.8300, 3.7500, 60e3},
	{"Kishi", "Oyo", 9.0800, 3.8500, 50e3},
	{"Igbo-Ora", "Oyo", 7.4300, 3.2900, 60e3},
	{"Okeho", "Oyo", 8.0300, 3.3500, 50e3},

	// Ogun
	{"Ijebu-Ode", "Ogun", 6.8194, 3.9173, 250e3},
	{"Sagamu", "Ogun", 6.8322, 3.6319, 300e3},
	{"Ota", "Ogun", 6.6804, 3.2356, 450e3},
	{"Ilaro", "Ogun", 6.8894, 3.0148, 80e3},
	{"Ijebu-Igbo", "Ogun", 6.9700, 4.0000, 60e3},
	{"Ayetoro", "Ogun", 7.2300, 3.0400, 40e3},
	{"Ifo", "Ogun", 6.8160, 3.1950, 150e3},

	// Osun
	{"Ile-Ife", "Osun", 7.4824, 4.5603, 400e3},
	{"Ilesa", "Osun", 7.6167, 4.7333, 350e3},
	{"Iwo", "Osun", 7.6291, 4.1872, 300e3},
	{"Ede", "Osun", 7.7340, 4.4355, 200e3},
	{"Ikirun", "Osun", 7.9100, 4.6700, 80e3},
	{"Ila", "Osun", 8.0100, 4.9000, 60e3},
	{"Ikire", "Osun", 7.3700, 4.1900, 80e3},

	// Ondo
	{"Ondo", "Ondo", 7.1000, 4.8333, 300e3},
	{"Owo", "Ondo", 7.1962, 5.5868, 250e3},
	{"Ikare", "Ondo", 7.5167, 5.7500, 150e3},
	{"Okitipupa", "Ondo", 6.5000, 4.7800, 80e3},
	{"Ore", "Ondo", 6.7500, 4.8800, 60e3},
	{"Idanre", "Ondo", 7.1100, 5.1100, 60e3},
	{"Igbokoda", "Ondo", 6.3500, 4.8000, 40e3},

	// Ekiti
	{"Ikere-Ekiti", "Ekiti", 7.4991, 5.2319, 150e3},
	{"Ikole-Ekiti", "Ekiti", 7.7900, 5.5100, 60e3},
	{"Ijero-Ekiti", "Ekiti", 7.8100, 5.0700, 60e3},
	{"Efon-Alaaye", "Ekiti", 7.6500, 4.9200, 40e3},
	{"Omuo-Ekiti", "Ekiti", 7.7600, 5.7200, 40e3},

	// Edo
	{"Auchi", "Edo", 7.0676, 6.2636, 150e3},
	{"Ekpoma", "Edo", 6.7427, 6.1391, 120e3},
	{"Uromi", "Edo", 6.7102, 6.3292, 100e3},
	{"Igarra", "Edo", 7.2800, 6.1000, 40e3},
	{"Ubiaja", "Edo", 6.6500, 6.3800, 40e3},
	{"Okada", "Edo", 6.7300, 5.3900, 40e3},
	{"Abudu", "Edo", 6.2800, 6.0100, 30e3},

	// Delta
	{"Warri", "Delta", 5.5167, 5.7500, 900e3},
	{"Sapele", "Delta", 5.8941, 5.6767, 200e3},
	{"Ughelli", "Delta", 5.4896, 5.9924, 200e3},
	{"Agbor", "Delta", 6.2545, 6.1939, 150e3},
	{"Burutu", "Delta", 5.3500, 5.5100, 40e3},
	{"Kwale", "Delta", 5.7100, 6.4300, 60e3},
	{"Ozoro", "Delta", 5.5400, 6.2200, 60e3},
	{"Bomadi", "Delta", 5.1600, 5.9200, 30e3},

	// Anambra
	{"Onitsha", "Anambra", 6.1667, 6.7833, 1.5e6},
	{"Nnewi", "Anambra", 6.0199, 6.9173, 400e3},
	{"Ekwulobia", "Anambra", 6.0300, 7.0800, 120e3},
	{"Ihiala", "Anambra", 5.8500, 6.8600, 100e3},
	{"Otuocha", "Anambra", 6.3400, 6.8500, 60e3},

	// Enugu
	{"Nsukka", "Enugu", 6.8567, 7.3958, 300e3},
	{"Agbani", "Enugu", 6.3000, 7.5500, 60e3},
	{"Udi", "Enugu", 6.3200, 7.4300, 60e3},
	{"Oji River", "Enugu", 6.2600, 7.2700, 50e3},
	{"Awgu", "Enugu", 6.0800, 7.4800, 50e3},
	{"Obollo-Afor", "Enugu", 6.9100, 7.5100, 50e3},

	// Ebonyi
	{"Afikpo", "Ebonyi", 5.8925, 7.9354, 150e3},
	{"Onueke", "Ebonyi", 6.1500, 8.0300, 40e3},
	{"Ishiagu", "Ebonyi", 5.9300, 7.5700, 40e3},
	{"Nkalagu", "Ebonyi", 6.5000, 7.8000, 30e3},

	// Imo
	{"Orlu", "Imo", 5.7957, 7.0351, 150e3},
	{"Okigwe", "Imo", 5.8292, 7.3500, 120e3},
	{"Oguta", "Imo", 5.7100, 6.8000, 40e3},
	{"Mbaise", "Imo", 5.5000, 7.2700, 80e3},

	// Abia
	{"Aba", "Abia", 5.1167, 7.3667, 1.1e6},
	{"Ohafia", "Abia", 5.6167, 7.8333, 60e3},
	{"Arochukwu", "Abia", 5.3833, 7.9167, 40e3},
	{"Bende", "Abia", 5.5600, 7.6400, 40e3},

	// Rivers
	{"Bonny", "Rivers", 4.4516, 7.1707, 100e3},
	{"Bori", "Rivers", 4.6725, 7.3640, 80e3},
	{"Ahoada", "Rivers", 5.0833, 6.6500, 80e3},
	{"Omoku", "Rivers", 5.3400, 6.6600, 60e3},
	{"Degema", "Rivers", 4.7500, 6.7700, 40e3},
	{"Okrika", "Rivers", 4.7400, 7.0800, 150e3},
	{"Opobo", "Rivers", 4.5100, 7.5400, 30e3},

	// Bayelsa
	{"Brass", "Bayelsa", 4.3150, 6.2410, 30e3},
	{"Ogbia", "Bayelsa", 4.6900, 6.3100, 40e3},
	{"Sagbama", "Bayelsa", 5.1600, 6.2000, 40e3},
	{"Nembe", "Bayelsa", 4.5400, 6.4100, 40e3},
	{"Ekeremor", "Bayelsa", 5.0500, 5.7800, 30e3},

	// Akwa Ibom
	{"Eket", "Akwa Ibom", 4.6423, 7.9244, 200e3},
	{"Ikot Ekpene", "Akwa Ibom", 5.1794, 7.7146, 200e3},
	{"Oron", "Akwa Ibom", 4.8270, 8.2340, 100e3},
	{"Abak", "Akwa Ibom", 4.9900, 7.7900, 80e3},
	{"Ikot Abasi", "Akwa Ibom", 4.5700, 7.5600, 60e3},
	{"Etinan", "Akwa Ibom", 4.8500, 7.8500, 60e3},

	// Cross River
	{"Ikom", "Cross River", 5.9617, 8.7206, 100e3},
	{"Ogoja", "Cross River", 6.6584, 8.7992, 80e3},
	{"Obudu", "Cross River", 6.6667, 9.1667, 60e3},
	{"Ugep", "Cross River", 5.8000, 8.0833, 150e3},
	{"Akamkpa", "Cross River", 5.3100, 8.3500, 30e3},
	{"Obubra", "Cross River", 6.0800, 8.3300, 40e3},

	// Benue
	{"Gboko", "Benue", 7.3250, 9.0014, 400e3},
	{"Otukpo", "Benue", 7.1905, 8.1300, 200e3},
	{"Katsina-Ala", "Benue", 7.1667, 9.2833, 100e3},
	{"Vandeikya", "Benue", 6.7900, 9.0700, 60e3},
	{"Zaki Biam", "Benue", 7.5000, 9.6100, 60e3},
	{"Adikpo", "Benue", 6.8800, 9.2300, 50e3},
	{"Aliade", "Benue", 7.3000, 8.4800, 40e3},
	{"Oju", "Benue", 6.8500, 8.4200, 40e3},
	{"Ugbokpo", "Benue", 7.6500, 7.8800, 30e3},

	// Kogi
	{"Okene", "Kogi", 7.5500, 6.2333, 400e3},
	{"Idah", "Kogi", 7.1096, 6.7372, 100e3},
	{"Kabba", "Kogi", 7.8333, 6.0667, 80e3},
	{"Ankpa", "Kogi", 7.3706, 7.6253, 100e3},
	{"Anyigba", "Kogi", 7.4900, 7.1700, 80e3},
	{"Dekina", "Kogi", 7.6900, 7.0400, 40e3},
	{"Ajaokuta", "Kogi", 7.5600, 6.6500, 60e3},
	{"Koton Karfe", "Kogi", 8.1000, 6.8000, 40e3},
	{"Isanlu", "Kogi", 8.2700, 5.8000, 30e3},
	{"Egbe", "Kogi", 8.2200, 5.5200, 30e3},

	// Nasarawa
	{"Keffi", "Nasarawa", 8.8486, 7.8736, 150e3},
	{"Akwanga", "Nasarawa", 8.9105, 8.3836, 80e3},
	{"Nasarawa", "Nasarawa", 8.5389, 7.7082, 60e3},
	{"Karu", "Nasarawa", 9.0094, 7.6615, 600e3},
	{"Doma", "Nasarawa", 8.4000, 8.3500, 50e3},
	{"Awe", "Nasarawa", 8.1000, 9.1400, 30e3},
	{"Wamba", "Nasarawa", 8.9400, 8.6000, 30e3},

	// Federal Capital Territory: Abuja's districts and satellite towns,
	// about 3 million in all with Abuja above.
	{"Kubwa", "Federal Capital Territory", 9.1568, 7.3223, 400e3},
	{"Gwagwalada", "Federal Capital Territory", 8.9428, 7.0836, 250e3},
	{"Kuje", "Federal Capital Territory", 8.8792, 7.2276, 100e3},
	{"Bwari", "Federal Capital Territory", 9.2800, 7.3800, 80e3},
	{"Abaji", "Federal Capital Territory", 8.4700, 6.9400, 40e3},
	{"Kwali", "Federal Capital Territory", 8.8800, 7.0000, 40e3},
	{"Nyanya", "Federal Capital Territory", 9.0300, 7.5700, 250e3},

	// Plateau
	{"Bukuru", "Plateau", 9.7935, 8.8705, 200e3},
	{"Pankshin", "Plateau", 9.3254, 9.4372, 60e3},
	{"Shendam", "Plateau", 8.8833, 9.5333, 60e3},
	{"Langtang", "Plateau", 9.1400, 9.7900, 60e3},
	{"Barkin Ladi", "Plateau", 9.5300, 8.9000, 50e3},
	{"Mangu", "Plateau", 9.5200, 9.1000, 50e3},
	{"Bokkos", "Plateau", 9.3000, 9.0000, 40e3},
	{"Wase", "Plateau", 9.0900, 9.9600, 30e3},

	// Bauchi
	{"Azare", "Bauchi", 11.6765, 10.1948, 150e3},
	{"Misau", "Bauchi", 11.3137, 10.4666, 60e3},
	{"Jama'are", "Bauchi", 11.6700, 9.9300, 50e3},
	{"Ningi", "Bauchi", 11.0800, 9.5700, 60e3},
	{"Alkaleri", "Bauchi", 10.2700, 10.3300, 30e3},
	{"Tafawa Balewa", "Bauchi", 9.7600, 9.5700, 40e3},
	{"Darazo", "Bauchi", 10.9900, 10.4100, 40e3},
	{"Dass", "Bauchi", 10.0000, 9.5200, 40e3},
	{"Toro", "Bauchi", 10.0600, 9.0700, 30e3},

	// Gombe
	{"Kumo", "Gombe", 10.0500, 11.2200, 60e3},
	{"Billiri", "Gombe", 9.8600, 11.2200, 50e3},
	{"Kaltungo", "Gombe", 9.8100, 11.3100, 50e3},
	{"Dukku", "Gombe", 10.8200, 10.7700, 40e3},
	{"Bajoga", "Gombe", 10.9200, 11.4300, 40e3},
	{"Nafada", "Gombe", 11.1000, 11.3300, 30e3},

	// Yobe
	{"Potiskum", "Yobe", 11.7128, 11.0780, 200e3},
	{"Gashua", "Yobe", 12.8683, 11.0464, 120e3},
	{"Nguru", "Yobe", 12.8792, 10.4526, 120e3},
	{"Geidam", "Yobe", 12.8944, 11.9265, 60e3},
	{"Buni Yadi", "Yobe", 11.2700, 12.0000, 30e3},
	{"Machina", "Yobe", 13.1400, 10.0500, 30e3},
	{"Fika", "Yobe", 11.2900, 11.3100, 30e3},

	// Borno
	{"Biu", "Borno", 10.6129, 12.1946, 150e3},
	{"Bama", "Borno", 11.5204, 13.6856, 100e3},
	{"Gwoza", "Borno", 11.0830, 13.6930, 60e3},
	{"Monguno", "Borno", 12.6700, 13.6100, 60e3},
	{"Dikwa", "Borno", 12.0361, 13.9182, 50e3},
	{"Damboa", "Borno", 11.1553, 12.7564, 50e3},
	{"Ngala", "Borno", 12.3400, 14.1800, 40e3},
	{"Konduga", "Borno", 11.6500, 13.4200, 40e3},
	{"Kukawa", "Borno", 12.9200, 13.5700, 30e3},
	{"Askira", "Borno", 10.6500, 12.9100, 30e3},
	{"Damasak", "Borno", 13.1000, 12.5100, 30e3},

	// Adamawa
	{"Mubi", "Adamawa", 10.2676, 13.2644, 200e3},
	{"Numan", "Adamawa", 9.4669, 12.0325, 80e3},
	{"Ganye", "Adamawa", 8.4300, 12.0500, 60e3},
	{"Michika", "Adamawa", 10.6200, 13.3900, 50e3},
	{"Gombi", "Adamawa", 10.1700, 12.7400, 40e3},
	{"Hong", "Adamawa", 10.2300, 12.9300, 30e3},
	{"Song", "Adamawa", 9.8300, 12.6200, 30e3},
	{"Mayo-Belwa", "Adamawa", 9.0500, 12.0600, 30e3},
	{"Jada", "Adamawa", 8.7600, 12.1500, 30e3},
	{"Toungo", "Adamawa", 8.1200, 12.0500, 20e3},

	// Taraba
	{"Wukari", "Taraba", 7.8711, 9.7796, 120e3},
	{"Bali", "Taraba", 7.8553, 10.9678, 50e3},
	{"Takum", "Taraba", 7.2667, 9.9833, 60e3},
	{"Serti", "Taraba", 7.5000, 11.3600, 30e3},
	{"Gembu", "Taraba", 6.7100, 11.2600, 40e3},
	{"Zing", "Taraba", 8.9900, 11.7500, 30e3},
	{"Ibi", "Taraba", 8.1800, 9.7400, 30e3},
	{"Mutum Biyu", "Taraba", 8.6500, 10.7800, 30e3},
}
